/**
 * Caddy JSON for denv's routes, and the admin API calls that bring a Caddy from what it has to
 * what denv wants — pure: caddy-proxy.ts reads the config, asks `planUpsert`/`planRemove` for the
 * steps and sends them.
 *
 * Layout in Caddy (all objects carry an `@id`, so each is addressable at `/id/<id>`):
 *   apps.http.servers.<server>      one server for denv, listening on the HTTP and HTTPS ports
 *                                   (Caddy serves TLS on every listener but the HTTP port's),
 *                                   HTTP/1.1 and HTTP/2 only (HTTP/3 would also bind UDP);
 *                                   its last route is `denv-fallback`, a 404 for unknown hosts
 *                                   (without it Caddy answers 200 with an empty body)
 *   …routes[]  denv-route-<id>      one per route: match on the hostnames, reverse_proxy to
 *                                   the upstreams; upstreams change by one PATCH of this object
 *   apps.tls.automation.policies[]  denv-tls-<id>, only for tls internal: the route's hostnames
 *                                   with Caddy's `internal` issuer; inserted first so it wins
 *                                   over any catch-all policy
 *   apps.pki…local.install_trust    false before any internal certificate: otherwise Caddy
 *                                   (as root) installs its root CA into the host's trust store
 *
 * TLS, by the route's matcher:
 *   internal  `host` matcher: served on both ports (HTTPS with a certificate from Caddy's CA);
 *   auto      `host` + `protocol: https`: Caddy's automatic HTTPS gets the certificate from its
 *             default ACME issuers and answers plain HTTP with its own redirect to HTTPS;
 *   off       `protocol: http` + a `vars` match on `{http.request.host}`: a `host` matcher
 *             would make Caddy fetch a certificate, this one keeps the name out of automatic
 *             HTTPS. It compares the Host exactly, so names are lower case (normalizeRoute).
 *
 * Never `PUT /id/<id>` (it inserts a duplicate) and never `PUT` onto an existing key (500):
 * new objects are inserted at index 0 of their array, existing ones PATCHed at their id.
 */
import { canonicalJson } from '../../lib/canonical-json.js';
import { hostPort } from '../names.js';
import type { ProxyRoute, TlsMode, Upstream } from '../proxy-provider.js';

export const CADDY_ROUTE_PREFIX = 'denv-route-';
export const CADDY_TLS_PREFIX = 'denv-tls-';
export const CADDY_FALLBACK_ID = 'denv-fallback';

export interface CaddyLayout {
  /** Name of denv's server under apps.http.servers. */
  readonly server: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  /** Address the listeners bind: '' for all interfaces, `127.0.0.1` for loopback only. */
  readonly bindHost: string;
}

export const caddyRouteId = (id: string) => `${CADDY_ROUTE_PREFIX}${id}`;
export const caddyTlsPolicyId = (id: string) => `${CADDY_TLS_PREFIX}${id}`;

type Json = Record<string, unknown>;

/**
 * Upstream keep-alive is off: each request is a new connection to the upstream, so when the
 * upstream behind a stable address changes (the agent's edge relay switching versions), the next
 * request reaches the new version and no pooled connection is left pointing at one that stops.
 */
const UPSTREAM_TRANSPORT = { protocol: 'http', keep_alive: { enabled: false } } as const;

export function caddyRoute(route: ProxyRoute): Json {
  return {
    '@id': caddyRouteId(route.id),
    match: [matcherFor(route.tls, route.hostnames)],
    handle: [{ handler: 'reverse_proxy', transport: UPSTREAM_TRANSPORT, upstreams: route.upstreams.map((u) => ({ dial: hostPort(u.host, u.port) })) }],
    terminal: true,
  };
}

function matcherFor(tls: TlsMode, hostnames: readonly string[]): Json {
  switch (tls) {
    case 'internal':
      return { host: [...hostnames] };
    case 'auto':
      return { host: [...hostnames], protocol: 'https' };
    case 'off':
      return { protocol: 'http', vars: { '{http.request.host}': [...hostnames] } };
  }
}

/** The TLS automation policy a route needs, or null when Caddy's defaults (auto) or no TLS (off) apply. */
export function caddyTlsPolicy(route: ProxyRoute): Json | null {
  if (route.tls !== 'internal') return null;
  return { '@id': caddyTlsPolicyId(route.id), subjects: [...route.hostnames], issuers: [{ module: 'internal' }] };
}

export function caddyFallbackRoute(): Json {
  return { '@id': CADDY_FALLBACK_ID, handle: [{ handler: 'static_response', status_code: 404 }] };
}

export function caddyServer(layout: CaddyLayout): Json {
  return {
    listen: [`${layout.bindHost}:${layout.httpPort}`, `${layout.bindHost}:${layout.httpsPort}`],
    protocols: ['h1', 'h2'],
    routes: [caddyFallbackRoute()],
  };
}

/** What caddy-proxy.ts reads before planning: `GET /config/apps` (null when Caddy has no apps). */
export type CaddyApps = Json | null;

export interface CaddyStep {
  readonly method: 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** For `Change.touched` and errors: `route denv-route-web`. */
  readonly what: string;
}

export interface CaddyPlan {
  readonly steps: readonly CaddyStep[];
  /** Whether denv's route existed before the plan (created vs updated). */
  readonly existed: boolean;
}

/**
 * The steps that make `apps` serve `route`, in a safe order: the server, then the CA's
 * install_trust and the internal TLS policy (so the route never exists a moment without its
 * policy, which would send Caddy to ACME for the name), then the route, then the removal of a
 * policy the route no longer needs. No steps when Caddy already serves exactly this route.
 */
export function planUpsert(apps: CaddyApps, route: ProxyRoute, layout: CaddyLayout): CaddyPlan {
  const steps: CaddyStep[] = [];
  const server = serverOf(apps, layout.server);
  if (!objectAt(apps, ['http'])) {
    steps.push({ method: 'PUT', path: '/config/apps/http', body: { http_port: layout.httpPort, https_port: layout.httpsPort, servers: { [layout.server]: caddyServer(layout) } }, what: `server ${layout.server}` });
  } else if (!server) {
    steps.push({ method: 'PUT', path: `/config/apps/http/servers/${layout.server}`, body: caddyServer(layout), what: `server ${layout.server}` });
  }

  const policy = caddyTlsPolicy(route);
  const policyId = caddyTlsPolicyId(route.id);
  const policies = arrayAt(apps, ['tls', 'automation', 'policies']);
  const existingPolicies = policies?.filter((p) => idOf(p) === policyId) ?? [];
  if (policy) {
    if (valueAt(apps, ['pki', 'certificate_authorities', 'local', 'install_trust']) !== false) {
      const hasKey = objectAt(apps, ['pki', 'certificate_authorities', 'local']) && 'install_trust' in (objectAt(apps, ['pki', 'certificate_authorities', 'local']) as Json);
      steps.push({ method: hasKey ? 'PATCH' : 'PUT', path: '/config/apps/pki/certificate_authorities/local/install_trust', body: false, what: 'pki local install_trust' });
    }
    steps.push(...duplicateDeletes(existingPolicies.length, policyId, 'tls policy'));
    if (existingPolicies.length === 0) {
      steps.push(policies ? { method: 'PUT', path: '/config/apps/tls/automation/policies/0', body: policy, what: `tls policy ${policyId}` } : { method: 'PUT', path: '/config/apps/tls/automation/policies', body: [policy], what: `tls policy ${policyId}` });
    } else if (!same(existingPolicies[0], policy)) {
      steps.push({ method: 'PATCH', path: `/id/${policyId}`, body: policy, what: `tls policy ${policyId}` });
    }
  }

  const desired = caddyRoute(route);
  const routeId = caddyRouteId(route.id);
  const existingRoutes = (server ? arrayAt(server, ['routes']) ?? [] : []).filter((r) => idOf(r) === routeId);
  steps.push(...duplicateDeletes(existingRoutes.length, routeId, 'route'));
  if (existingRoutes.length === 0) {
    steps.push({ method: 'PUT', path: `/config/apps/http/servers/${layout.server}/routes/0`, body: desired, what: `route ${routeId}` });
  } else if (!same(existingRoutes[0], desired)) {
    steps.push({ method: 'PATCH', path: `/id/${routeId}`, body: desired, what: `route ${routeId}` });
  }

  if (!policy) for (let i = 0; i < existingPolicies.length; i++) steps.push({ method: 'DELETE', path: `/id/${policyId}`, what: `tls policy ${policyId}` });
  return { steps, existed: existingRoutes.length > 0 };
}

/** The steps that remove route `id` and its TLS policy (every copy of each). */
export function planRemove(apps: CaddyApps, id: string, layout: CaddyLayout): CaddyPlan {
  const routeId = caddyRouteId(id);
  const policyId = caddyTlsPolicyId(id);
  const server = serverOf(apps, layout.server);
  const routes = (server ? arrayAt(server, ['routes']) ?? [] : []).filter((r) => idOf(r) === routeId).length;
  const policies = (arrayAt(apps, ['tls', 'automation', 'policies']) ?? []).filter((p) => idOf(p) === policyId).length;
  const steps: CaddyStep[] = [];
  for (let i = 0; i < routes; i++) steps.push({ method: 'DELETE', path: `/id/${routeId}`, what: `route ${routeId}` });
  for (let i = 0; i < policies; i++) steps.push({ method: 'DELETE', path: `/id/${policyId}`, what: `tls policy ${policyId}` });
  return { steps, existed: routes > 0 };
}

/** denv's routes in `apps`, read back into ProxyRoutes (duplicates once). Routes whose shape denv did not write come back with what could be read. */
export function readRoutes(apps: CaddyApps, layout: CaddyLayout): ProxyRoute[] {
  const server = serverOf(apps, layout.server);
  const seen = new Map<string, ProxyRoute>();
  for (const r of server ? arrayAt(server, ['routes']) ?? [] : []) {
    const cid = idOf(r);
    if (!cid?.startsWith(CADDY_ROUTE_PREFIX) || seen.has(cid)) continue;
    seen.set(cid, parseRoute(cid.slice(CADDY_ROUTE_PREFIX.length), r as Json));
  }
  return [...seen.values()].sort((a, b) => a.id.localeCompare(b.id));
}

function parseRoute(id: string, r: Json): ProxyRoute {
  const match = (Array.isArray(r.match) ? r.match[0] : null) as Json | null;
  const host = Array.isArray(match?.host) ? (match.host as string[]) : null;
  const vars = match?.vars as Json | undefined;
  const varHosts = Array.isArray(vars?.['{http.request.host}']) ? (vars['{http.request.host}'] as string[]) : null;
  const tls: TlsMode = varHosts ? 'off' : match?.protocol === 'https' ? 'auto' : 'internal';
  const handler = (Array.isArray(r.handle) ? r.handle[0] : null) as Json | null;
  const upstreams: Upstream[] = (Array.isArray(handler?.upstreams) ? (handler.upstreams as Json[]) : []).flatMap((u) => {
    const m = typeof u.dial === 'string' ? /^\[?([^\]]*?)\]?:(\d+)$/.exec(u.dial) : null;
    return m ? [{ host: m[1]!, port: Number(m[2]) }] : [];
  });
  return { id, hostnames: [...(host ?? varHosts ?? [])].sort(), upstreams, tls };
}

function duplicateDeletes(count: number, id: string, kind: string): CaddyStep[] {
  // `/id/<id>` resolves to one of the copies; deleting count-1 times leaves exactly one.
  return Array.from({ length: Math.max(0, count - 1) }, () => ({ method: 'DELETE' as const, path: `/id/${id}`, what: `duplicate ${kind} ${id}` }));
}

function serverOf(apps: CaddyApps, server: string): Json | null {
  return objectAt(apps, ['http', 'servers', server]);
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function idOf(v: unknown): string | null {
  return v && typeof v === 'object' && typeof (v as Json)['@id'] === 'string' ? ((v as Json)['@id'] as string) : null;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Json)[k];
  }
  return v;
}

function objectAt(root: unknown, path: readonly string[]): Json | null {
  const v = valueAt(root, path);
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
}

function arrayAt(root: unknown, path: readonly string[]): unknown[] | null {
  const v = valueAt(root, path);
  return Array.isArray(v) ? v : null;
}
