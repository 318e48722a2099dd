/**
 * env.rollback (a rollback, `start`, a deploy's verdict) makes one version of an env the one
 * running and then stops the others. When the env is on the edge, its relay routes must point at
 * that version before the others stop, or the proxy would send requests to a closed port until
 * the control plane's next `env.edge`. This moves every route of the env the relay holds to the
 * port its service now serves on and says how long the old version must drain (the longest
 * `x-denv.edge.drain` of the services it moved). Routes the relay does not hold are left to the
 * control plane (it creates routes; this only follows versions).
 */
import { edgeRouteId } from '../../contracts/env-edge.js';
import type { ServiceEndpoint } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import type { EdgeRelay } from './edge-relay.js';

export async function followVersion(relay: EdgeRelay | undefined, env: string, endpoints: readonly ServiceEndpoint[], services: Readonly<Record<string, ServiceSpec>>): Promise<{ moved: string[]; drainMs: number }> {
  const moved: string[] = [];
  let drainMs = 0;
  if (!relay) return { moved, drainMs };
  for (const e of endpoints) {
    const id = edgeRouteId(env, e.service);
    if (!relay.has(id)) continue;
    const { previous } = await relay.route(id, e.port);
    if (previous === null || previous === e.port) continue;
    moved.push(id);
    drainMs = Math.max(drainMs, services[e.service]?.edge?.drain_ms ?? 0);
  }
  return { moved, drainMs };
}
