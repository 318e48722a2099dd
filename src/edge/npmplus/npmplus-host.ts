/**
 * NPMplus (and Nginx Proxy Manager) proxy hosts for denv's routes — pure: what denv sends to
 * `POST`/`PUT /api/nginx/proxy-hosts`, whether an existing host needs it, and how a host reads
 * back as a route. Fields are those of the published API schema
 * (backend/schema/paths/nginx/proxy-hosts/post.json) that NPM and NPMplus share:
 * `domain_names`, `forward_scheme`, `forward_host`, `forward_port`, `certificate_id`,
 * `ssl_forced`, `allow_websocket_upgrade`, `advanced_config`.
 *
 * Proxy hosts have no free-form label, so denv marks its own with an nginx comment as the
 * first line of `advanced_config` (`# denv-route: <id>`): harmless to nginx, kept by both
 * products, and the only thing `listRoutes` trusts.
 *
 * TLS: `auto` asks NPMplus for a certificate (`certificate_id: "new"`, with its own ACME
 * settings) and forces HTTPS; an existing certificate id is kept so a re-run requests nothing.
 * `off` is `certificate_id: 0`. `internal` does not exist in NPMplus (no CA of its own) and is
 * refused; so is more than one upstream (a proxy host forwards to one host and port).
 */
import { canonicalJson } from '../../lib/canonical-json.js';
import { EdgeError } from '../edge-error.js';
import type { ProxyRoute } from '../proxy-provider.js';

export const NPMPLUS_MARK = '# denv-route: ';

/** A proxy host as `GET /api/nginx/proxy-hosts` lists it (the fields denv reads). */
export interface NpmProxyHost {
  readonly id: number;
  readonly domain_names: readonly string[];
  readonly forward_scheme?: string;
  readonly forward_host?: string;
  readonly forward_port?: number | string | null;
  readonly certificate_id?: number | string | null;
  readonly ssl_forced?: boolean | number;
  readonly allow_websocket_upgrade?: boolean | number;
  readonly advanced_config?: string;
}

export interface NpmHostPayload {
  readonly domain_names: readonly string[];
  readonly forward_scheme: 'http';
  readonly forward_host: string;
  readonly forward_port: number;
  readonly certificate_id: number | 'new';
  readonly ssl_forced: boolean;
  readonly allow_websocket_upgrade: boolean;
  readonly advanced_config: string;
}

export function markOf(id: string): string {
  return `${NPMPLUS_MARK}${id}`;
}

/** The denv route id a host was created for, or null when it is not denv's. */
export function routeIdOf(host: NpmProxyHost): string | null {
  const first = (host.advanced_config ?? '').split('\n')[0]?.trim() ?? '';
  return first.startsWith(NPMPLUS_MARK) ? first.slice(NPMPLUS_MARK.length).trim() || null : null;
}

/** What denv sends for `route` (normalized), keeping the certificate `existing` already has. */
export function hostPayload(route: ProxyRoute, existing: NpmProxyHost | null): NpmHostPayload {
  if (route.tls === 'internal') throw new EdgeError('unsupported', `route ${route.id}: npmplus has no internal CA; use tls auto or off`);
  if (route.upstreams.length !== 1) throw new EdgeError('unsupported', `route ${route.id}: an npmplus proxy host forwards to exactly one upstream, not ${route.upstreams.length}`);
  const up = route.upstreams[0]!;
  const existingCert = typeof existing?.certificate_id === 'number' && existing.certificate_id > 0 ? existing.certificate_id : null;
  return {
    domain_names: [...route.hostnames],
    forward_scheme: 'http',
    forward_host: up.host,
    forward_port: up.port,
    certificate_id: route.tls === 'auto' ? (existingCert ?? 'new') : 0,
    ssl_forced: route.tls === 'auto',
    allow_websocket_upgrade: true,
    advanced_config: markOf(route.id),
  };
}

/** Whether `existing` differs from `payload` in anything denv sets (booleans may come back as 0/1, ports as strings). */
export function differs(existing: NpmProxyHost, payload: NpmHostPayload): boolean {
  const seen = {
    domain_names: [...existing.domain_names].map((d) => d.toLowerCase()).sort(),
    forward_scheme: existing.forward_scheme,
    forward_host: existing.forward_host,
    forward_port: Number(existing.forward_port),
    certificate_id: existing.certificate_id === 'new' ? 'new' : Number(existing.certificate_id ?? 0),
    ssl_forced: Boolean(existing.ssl_forced),
    allow_websocket_upgrade: Boolean(existing.allow_websocket_upgrade),
    advanced_config: (existing.advanced_config ?? '').trim(),
  };
  return canonicalJson(seen) !== canonicalJson({ ...payload, domain_names: [...payload.domain_names].sort() });
}

export function readRoute(host: NpmProxyHost, id: string): ProxyRoute {
  const cert = host.certificate_id;
  const tls = cert === 'new' || (typeof cert === 'number' && cert > 0) ? 'auto' : 'off';
  const port = Number(host.forward_port);
  return {
    id,
    hostnames: [...host.domain_names].map((d) => d.toLowerCase()).sort(),
    upstreams: host.forward_host && Number.isInteger(port) ? [{ host: host.forward_host, port }] : [],
    tls,
  };
}
