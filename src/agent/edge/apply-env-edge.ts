/**
 * env.edge's work (contracts/env-edge.ts): the env's routes and DNS names made as the control
 * plane asks, through the team's providers (src/edge/), from this host.
 *
 *   proxy  point each wanted route's relay port at the service's port (edge-relay.ts: the
 *          switch to a new version, with no proxy write), upsert the route (hostnames →
 *          127.0.0.1:<relay port>; written once, unchanged afterwards), then remove the routes
 *          no longer wanted and their relay ports. A route already as wanted sends no write
 *          (provider contract), so the edge sweep can call this as often as it likes
 *   dns    each wanted hostname → this host's public addresses, then remove the names no longer
 *          wanted
 *
 * Each provider stops at its first failed call and answers `failed` with the error and what it
 * applied before it; the other provider still runs (a DNS outage does not keep the route from
 * moving). Nothing here throws for a provider: the edge is best effort (DESIGN §8).
 */
import type { EdgeProviderOutcome, EnvEdgePayload, EnvEdgeResult } from '../../contracts/env-edge.js';
import { openDnsProvider, openProxyProvider } from '../../edge/open-providers.js';
import { edgeErrorOf, publishNames, routeService, type RouteRelay } from './edge-calls.js';

export interface ApplyEdgeOptions {
  readonly relay: RouteRelay;
  /** What the names resolve to (edge/public-address.ts). */
  readonly publicIp: readonly string[];
  /** Where Caddy's listeners bind (agent config `proxy_bind`); default all interfaces. */
  readonly proxyBind?: string;
  readonly signal?: AbortSignal;
}

async function applyProxy(p: EnvEdgePayload, o: ApplyEdgeOptions): Promise<EdgeProviderOutcome> {
  const changes: { key: string; action: string }[] = [];
  const switched: { key: string; from: number; to: number }[] = [];
  let endpoint: string = p.proxy.provider;
  try {
    const proxy = openProxyProvider(p.proxy, o.proxyBind ? { caddyBindHost: o.proxyBind } : {});
    endpoint = proxy.endpoint;
    if (proxy.kind === 'none') return { provider: 'none', status: 'skipped', endpoint, changes };
    const wanted = new Set(p.routes.map((r) => r.id));
    for (const r of p.routes) {
      const routed = await routeService(proxy, o.relay, r, o.signal);
      if (routed.switched) switched.push({ key: r.id, ...routed.switched });
      changes.push({ key: r.id, action: routed.change.action });
    }
    for (const id of p.remove_routes.filter((id) => !wanted.has(id))) {
      changes.push({ key: id, action: (await proxy.removeRoute(id, { signal: o.signal })).action });
      await o.relay.remove(id);
    }
    return { provider: p.proxy.provider, status: 'ok', endpoint, changes, switched };
  } catch (err) {
    return { provider: p.proxy.provider, status: 'failed', endpoint, changes, switched, error: edgeErrorOf(err) };
  }
}

async function applyDns(p: EnvEdgePayload, o: ApplyEdgeOptions): Promise<EnvEdgeResult['dns']> {
  const changes: { key: string; action: string }[] = [];
  const addresses = [...o.publicIp];
  let endpoint: string = p.dns.provider;
  try {
    const dns = openDnsProvider(p.dns);
    endpoint = dns.endpoint;
    if (dns.kind === 'none') return { provider: 'none', status: 'skipped', endpoint, changes, addresses };
    const names = [...new Set(p.routes.flatMap((r) => r.hostnames))];
    changes.push(...(await publishNames(dns, names, addresses, o.signal)));
    for (const name of p.remove_names.filter((n) => !names.includes(n))) {
      changes.push({ key: name, action: (await dns.removeRecords(name, { signal: o.signal })).action });
    }
    return { provider: p.dns.provider, status: 'ok', endpoint, changes, addresses };
  } catch (err) {
    return { provider: p.dns.provider, status: 'failed', endpoint, changes, addresses, error: edgeErrorOf(err) };
  }
}

export async function applyEnvEdge(p: EnvEdgePayload, o: ApplyEdgeOptions): Promise<EnvEdgeResult> {
  const [proxy, dns] = await Promise.all([applyProxy(p, o), applyDns(p, o)]);
  return { proxy, dns };
}
