/**
 * The reverse proxy in front of denv's services (DESIGN §8): one interface, one implementation
 * per product (caddy/, npmplus/, none.ts). The pipeline's `proxy` stage upserts the service's
 * route after health; the preflight calls `readiness`; teardown calls `removeRoute`; the edge
 * sweep compares `listRoutes` with what should exist and upserts or removes until they agree.
 *
 * Contract for every implementation:
 *   - Routes are denv's own: created with an id prefix (or marker) that `listRoutes` filters on;
 *     nothing else on the proxy is read as a route, changed or removed.
 *   - `upsertRoute` is idempotent and keyed by `route.id`: a second call with the same route
 *     sends no write and answers `unchanged`.
 *   - Changing only the upstreams of an existing route is ONE write on the provider, so the
 *     hostname goes from the old upstream to the new one with no moment where it has neither
 *     (the zero-downtime cutover relies on this).
 *   - Every HTTP call has a timeout; failures throw `EdgeError` without secrets in the message.
 */
import type { CallOptions, Change } from './change.js';
import type { Readiness } from './readiness.js';
import { checkPort, checkRouteId, normalizeHostnames } from './names.js';
import { EdgeError } from './edge-error.js';

export const TLS_MODES = ['auto', 'internal', 'off'] as const;
/**
 *   auto      certificates from the proxy's public ACME issuers (production names)
 *   internal  certificates from the proxy's own CA (previews, tests; clients must trust that CA)
 *   off       plain HTTP only
 */
export type TlsMode = (typeof TLS_MODES)[number];

export interface Upstream {
  readonly host: string;
  readonly port: number;
}

export interface ProxyRoute {
  readonly id: string;
  readonly hostnames: readonly string[];
  /** Where requests go; more than one balances between them (Caddy). */
  readonly upstreams: readonly Upstream[];
  readonly tls: TlsMode;
}

export const PROXY_KINDS = ['caddy', 'npmplus', 'none'] as const;
export type ProxyKind = (typeof PROXY_KINDS)[number];

export interface ProxyProvider {
  readonly kind: ProxyKind;
  /** How errors and evidence name it, without secrets: `caddy admin API at 127.0.0.1:2019`. */
  readonly endpoint: string;
  /** Is the proxy reachable and usable? Changes nothing, never throws. */
  readiness(o?: CallOptions): Promise<Readiness>;
  /** Create or update the route with this id so the proxy serves exactly `route`. */
  upsertRoute(route: ProxyRoute, o?: CallOptions): Promise<Change>;
  /** Remove the route with this id; `absent` when there was none. */
  removeRoute(id: string, o?: CallOptions): Promise<Change>;
  /** denv's routes on this proxy, by id. */
  listRoutes(o?: CallOptions): Promise<readonly ProxyRoute[]>;
}

/** The route in the one form providers compare: id checked, hostnames normalized and sorted, upstreams checked. */
export function normalizeRoute(route: ProxyRoute): ProxyRoute {
  const id = checkRouteId(route.id);
  const what = `route ${id}`;
  if (!(TLS_MODES as readonly string[]).includes(route.tls)) throw new EdgeError('invalid', `${what}: tls must be one of ${TLS_MODES.join(', ')}, not ${JSON.stringify(route.tls)}`);
  if (route.upstreams.length === 0) throw new EdgeError('invalid', `${what}: at least one upstream is needed`);
  const upstreams = route.upstreams.map((u) => {
    if (typeof u.host !== 'string' || u.host.length === 0 || /[\s/]/.test(u.host)) throw new EdgeError('invalid', `${what}: invalid upstream host ${JSON.stringify(u.host)}`);
    return { host: u.host, port: checkPort(u.port, what) };
  });
  return { id, hostnames: normalizeHostnames(route.hostnames, what), upstreams, tls: route.tls };
}
