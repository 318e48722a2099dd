/**
 * The edge inside operations (issue 12): the calls phases make to put an env on its team's edge
 * or take it off, through the one executor (edge/env-edge-sync.ts). Best effort like all of the
 * edge: a provider failure is evidence, never the phase's failure.
 *
 *   putOnEdge       deploy's `ingress`; the verdicts of `start` and `rollback` (their versions
 *                   serve on new ports: the proxy must follow now, not at the sweep's next pass)
 *   removeFromEdge  `stop` and `teardown`, before the services go: the proxy stops sending
 *                   requests to ports about to close, and no name points at a host that no
 *                   longer serves it; what could not be removed stays in the record for the sweep
 */
import type { ServiceEndpoint } from '../../contracts/protocol.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { messageOf } from '../../contracts/errors.js';
import { withPublic } from '../edge/desired-edge.js';
import { readEnvEdge } from '../edge/env-edge-record.js';
import { desiredEdgeOf, hasEdge, NOTHING, readEdgeFacts, syncEnvEdge, type EdgeEnv, type EdgeSyncOutcome } from '../edge/env-edge-sync.js';
import type { PhaseContext } from './phase.js';

export interface OnEdge {
  readonly sync: EdgeSyncOutcome;
  /** The endpoints as the env shows them: with `public` URLs when routes were sent. */
  readonly endpoints: ReturnType<typeof withPublic>;
}

/** Send `services`' routes (on the ports of `endpoints`) to `host`. Throws only when the host could not be asked. */
export async function putOnEdge(ctx: PhaseContext, env: EdgeEnv, host: string, services: Readonly<Record<string, ServiceSpec>>, endpoints: readonly ServiceEndpoint[], key = 'edge'): Promise<OnEdge> {
  // Most deploys have no edge: then only the env's record is read (a route of an earlier version may be left to remove).
  const previous = await readEnvEdge(ctx.db, env.id);
  if (!hasEdge(services) && previous === null) return { sync: { desired: NOTHING, result: null, reason: 'no service has x-denv.edge', record: null }, endpoints: withPublic(endpoints, null) };
  const facts = await readEdgeFacts(ctx.db, env, previous);
  const ports = Object.fromEntries(endpoints.map((e) => [e.service, e.port]));
  const desired = desiredEdgeOf(facts, env, services, ports);
  const sync = await syncEnvEdge(ctx.db, env, facts, desired, (payload) => ctx.call(host, 'env.edge', payload, key));
  return { sync, endpoints: withPublic(endpoints, sync.result ? desired : null) };
}

/** Evidence of a verdict's `putOnEdge` (null when there was nothing to send); never throws. */
export async function edgeEvidence(ctx: PhaseContext, env: EdgeEnv, host: string, services: Readonly<Record<string, ServiceSpec>>, endpoints: readonly ServiceEndpoint[]): Promise<{ evidence: Record<string, unknown> | null; endpoints: OnEdge['endpoints'] | null }> {
  try {
    const { sync, endpoints: shown } = await putOnEdge(ctx, env, host, services, endpoints);
    if (!sync.result) return { evidence: null, endpoints: null };
    return { evidence: { names: sync.desired.names, status: sync.record?.status ?? 'ok', proxy: sync.result.proxy, dns: sync.result.dns }, endpoints: shown };
  } catch (err) {
    return { evidence: { error: messageOf(err) }, endpoints: null };
  }
}

/** Evidence for the phase: null when the env had nothing on the edge. */
export async function removeFromEdge(ctx: PhaseContext, env: EdgeEnv, host: string): Promise<Record<string, unknown> | null> {
  try {
    const previous = await readEnvEdge(ctx.db, env.id);
    if (previous === null) return null;
    const sync = await syncEnvEdge(ctx.db, env, await readEdgeFacts(ctx.db, env, previous), NOTHING, (payload) => ctx.call(host, 'env.edge', payload, 'edge-remove'));
    if (!sync.result) return null;
    const removed = (o: typeof sync.result.proxy) => ({ provider: o.provider, status: o.status, changes: o.changes, ...(o.error ? { error: o.error } : {}) });
    return { proxy: removed(sync.result.proxy), dns: removed(sync.result.dns), left: sync.record ? { routes: sync.record.routes.map((r) => r.id), names: sync.record.names } : null };
  } catch (err) {
    return { error: messageOf(err) };
  }
}
