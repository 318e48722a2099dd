/**
 * The two edge calls every caller on a host makes — the control plane's `env.edge`
 * (apply-env-edge.ts) and the standalone pipeline's `proxy` and `dns` stages — so a route and a
 * name are made the same way whoever asks.
 */
import type { EdgeProviderError } from '../../contracts/env-edge.js';
import { messageOf } from '../../contracts/errors.js';
import type { Change, DnsProvider, ProxyProvider, TlsMode } from '../../edge/index.js';
import { EdgeError, isEdgeError } from '../../edge/edge-error.js';

/** The host's edge relay (edge-relay.ts): stable ports in front of services. */
export interface RouteRelay {
  route(id: string, target: number): Promise<{ readonly listen: number; readonly previous: number | null }>;
  remove(id: string): Promise<boolean>;
}

/** Routes go to the relay on this host's loopback: the proxy runs beside the agent. */
const UPSTREAM_HOST = '127.0.0.1';

export interface RoutedService {
  readonly change: Change;
  /** The relay port the proxy dials. */
  readonly listen: number;
  /** Set when the relay moved from another version's port to this one. */
  readonly switched: { readonly from: number; readonly to: number } | null;
}

/**
 * `hostnames` → the service on `port`: the relay first (a route created now must find its port
 * listening; a new version is a relay switch, no proxy write), then the route to the relay port
 * (written once; `unchanged` afterwards). Provider failures throw EdgeError.
 */
export async function routeService(proxy: ProxyProvider, relay: RouteRelay, r: { id: string; hostnames: readonly string[]; tls: TlsMode; port: number }, signal?: AbortSignal): Promise<RoutedService> {
  const relayed = await relay.route(r.id, r.port).catch((err: unknown) => {
    throw new EdgeError('unreachable', `edge relay: ${messageOf(err)}`);
  });
  const change = await proxy.upsertRoute({ id: r.id, hostnames: r.hostnames, upstreams: [{ host: UPSTREAM_HOST, port: relayed.listen }], tls: r.tls }, { signal });
  return { change, listen: relayed.listen, switched: relayed.previous !== null && relayed.previous !== r.port ? { from: relayed.previous, to: r.port } : null };
}

/** Each name → `addresses` (A for IPv4, AAAA for IPv6). Throws EdgeError, or `invalid` when the host has no address. */
export async function publishNames(dns: DnsProvider, names: readonly string[], addresses: readonly string[], signal?: AbortSignal): Promise<{ key: string; action: string }[]> {
  if (names.length > 0 && addresses.length === 0) throw new EdgeError('invalid', 'this host has no public address to publish: set public_ip in its agent config', { retryable: false });
  const changes: { key: string; action: string }[] = [];
  for (const name of names) changes.push({ key: name, action: (await dns.upsertRecords({ name, addresses: [...addresses] }, { signal })).action });
  return changes;
}

export function edgeErrorOf(err: unknown): EdgeProviderError {
  if (isEdgeError(err)) return { reason: err.reason, retryable: err.retryable, message: err.message };
  return { reason: 'protocol', retryable: true, message: messageOf(err) };
}
