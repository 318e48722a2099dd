/** What the pipeline's edge stages (proxy, dns and their preflight readiness) share. */
import { edgeRouteId } from '../../../contracts/env-edge.js';
import type { DnsConfig, ProxyConfig } from '../../../edge/edge-config.js';
import type { PipelineRequest } from '../stage.js';

/** A standalone service's route id: one per service, whatever its version (edge-relay.ts keys on it). */
export const standaloneRouteId = (service: string) => edgeRouteId('standalone', service);

/** Why the stage has nothing to do, or null when it must run. */
/** Why a service deployed by the control plane skips the proxy and dns stages. */
export const CONTROL_PLANE_EDGE = "control-plane deploy: the deploy's ingress phase puts the service on the team's edge";

export function edgeSkipReason(req: PipelineRequest, hostnames: readonly string[], provider: ProxyConfig | DnsConfig | null, what: string, key: string): string | null {
  if (req.spec !== null) return CONTROL_PLANE_EDGE;
  if (hostnames.length === 0) return 'no edge.hostnames in the envelope';
  if (provider === null || provider.provider === 'none') return `provider none: no ${what} is configured on this host (agent.yaml ${key})`;
  return null;
}
