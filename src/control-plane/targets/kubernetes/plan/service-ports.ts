/**
 * The ports a service listens on, as its container and its Service declare them: the spec's ports
 * (Compose `ports` targets and `expose`), with the protocol a published entry gave (else TCP), then
 * `x-denv.edge.port` when it is not among them (the Ingress routes to a port of the Service).
 * The first one is the service's port: `PORT`, `DENV_<S>_PORT`, the tcpSocket probe, the edge default.
 */
import type { ServiceSpec } from '../../../../contracts/spec-types.js';

export interface ServicePort {
  readonly port: number;
  readonly protocol: 'tcp' | 'udp';
}

export function servicePorts(svc: ServiceSpec): ServicePort[] {
  const out: ServicePort[] = svc.ports.map((port) => ({ port, protocol: svc.published?.find((p) => p.target === port)?.protocol ?? 'tcp' }));
  const edgePort = svc.edge?.port;
  if (edgePort != null && !svc.ports.includes(edgePort)) out.push({ port: edgePort, protocol: 'tcp' });
  return out;
}
