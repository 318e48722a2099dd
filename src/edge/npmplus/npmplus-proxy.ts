/**
 * The `npmplus` proxy provider: NPMplus (or Nginx Proxy Manager) through its REST API, one
 * proxy host per denv route (npmplus-host.ts says what is sent). Contract-tested only, against
 * test/helpers/npmplus-server.ts, which speaks the endpoints as the published API documents
 * them; no real NPMplus runs in the tests.
 *
 * An upstream switch is one `PUT /api/nginx/proxy-hosts/<id>` (NPMplus rewrites that host's
 * nginx config and reloads nginx, which finishes in-flight requests on the old workers).
 */
import { change, type CallOptions, type Change } from '../change.js';
import { EdgeError, isEdgeError } from '../edge-error.js';
import { checkRouteId } from '../names.js';
import { normalizeRoute, type ProxyProvider, type ProxyRoute } from '../proxy-provider.js';
import { requestJson } from '../http-json.js';
import type { Readiness } from '../readiness.js';
import { differs, hostPayload, readRoute, routeIdOf, type NpmProxyHost } from './npmplus-host.js';
import { NpmplusSession } from './npmplus-session.js';

export interface NpmplusProxyOptions {
  readonly url: string;
  readonly email: string;
  readonly password: string;
  /** Per HTTP call; default 15 s (NPMplus reloads nginx before it answers a write). */
  readonly timeoutMs?: number;
}

const HOSTS = '/api/nginx/proxy-hosts';

export class NpmplusProxy implements ProxyProvider {
  readonly kind = 'npmplus' as const;
  readonly endpoint: string;
  private readonly session: NpmplusSession;

  constructor(o: NpmplusProxyOptions) {
    this.session = new NpmplusSession({ url: o.url, email: o.email, password: o.password, timeoutMs: o.timeoutMs ?? 15_000 });
    this.endpoint = this.session.label;
  }

  async readiness(o: CallOptions = {}): Promise<Readiness> {
    const base = { provider: this.kind, endpoint: this.session.label };
    try {
      const health = (await requestJson(this.session.anonymous(), { method: 'GET', path: '/api', signal: o.signal })).body as { status?: unknown; version?: unknown } | null;
      const version = versionOf(health?.version);
      const routes = (await this.hosts(o)).filter((h) => routeIdOf(h) !== null).length;
      return { ...base, ready: true, detail: `NPMplus ${version ?? '(version unknown)'} answers; logged in; ${routes} denv route(s)`, facts: { version, status: typeof health?.status === 'string' ? health.status : null, routes } };
    } catch (err) {
      return { ...base, ready: false, detail: isEdgeError(err) ? err.message : String(err), facts: {} };
    }
  }

  async upsertRoute(route: ProxyRoute, o: CallOptions = {}): Promise<Change> {
    const r = normalizeRoute(route);
    hostPayload(r, null); // refuse what NPMplus cannot do before any call
    const hosts = await this.hosts(o);
    const ours = hosts.filter((h) => routeIdOf(h) === r.id);
    const taken = hosts.find((h) => routeIdOf(h) !== r.id && h.domain_names.some((d) => r.hostnames.includes(d.toLowerCase())));
    if (taken) {
      const owner = routeIdOf(taken);
      throw new EdgeError('conflict', `${this.session.label}: ${taken.domain_names.join(', ')} is served by proxy host ${taken.id}${owner ? ` (denv route ${owner})` : ', which denv did not create'}`);
    }
    const touched: string[] = [];
    for (const extra of ours.slice(1)) {
      await this.session.call({ method: 'DELETE', path: `${HOSTS}/${extra.id}`, signal: o.signal });
      touched.push(`duplicate proxy host ${extra.id}`);
    }
    const existing = ours[0] ?? null;
    const payload = hostPayload(r, existing);
    if (!existing) {
      const created = (await this.session.call({ method: 'POST', path: HOSTS, body: payload, signal: o.signal })).body as { id?: unknown } | null;
      return change('created', [...touched, `proxy host ${typeof created?.id === 'number' ? created.id : '(new)'}`]);
    }
    if (!differs(existing, payload)) return touched.length > 0 ? change('updated', touched) : change('unchanged');
    await this.session.call({ method: 'PUT', path: `${HOSTS}/${existing.id}`, body: payload, signal: o.signal });
    return change('updated', [...touched, `proxy host ${existing.id}`]);
  }

  async removeRoute(id: string, o: CallOptions = {}): Promise<Change> {
    checkRouteId(id);
    const ours = (await this.hosts(o)).filter((h) => routeIdOf(h) === id);
    for (const h of ours) await this.session.call({ method: 'DELETE', path: `${HOSTS}/${h.id}`, signal: o.signal });
    return ours.length > 0 ? change('removed', ours.map((h) => `proxy host ${h.id}`)) : change('absent');
  }

  async listRoutes(o: CallOptions = {}): Promise<readonly ProxyRoute[]> {
    const seen = new Map<string, ProxyRoute>();
    for (const h of await this.hosts(o)) {
      const id = routeIdOf(h);
      if (id && !seen.has(id)) seen.set(id, readRoute(h, id));
    }
    return [...seen.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  private async hosts(o: CallOptions): Promise<NpmProxyHost[]> {
    const body = (await this.session.call({ method: 'GET', path: HOSTS, signal: o.signal })).body;
    if (!Array.isArray(body)) throw new EdgeError('protocol', `${this.session.label}: GET ${HOSTS} answered something other than a list of proxy hosts`);
    return body as NpmProxyHost[];
  }
}

/** NPMplus reports `"2.x.y"`, Nginx Proxy Manager `{major, minor, revision}`. */
function versionOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && 'major' in v) {
    const { major, minor, revision } = v as { major?: unknown; minor?: unknown; revision?: unknown };
    return [major, minor, revision].filter((x) => x !== undefined).join('.');
  }
  return null;
}
