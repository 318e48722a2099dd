/**
 * The `caddy` proxy provider: Caddy's admin API (DESIGN §8), which has no authentication and
 * must stay on loopback. Each call reads `GET /config/apps` once, asks caddy-config.ts for the
 * steps and sends them in order; a re-run finds nothing to do and writes nothing.
 *
 * Caddy applies every admin write as a new config and rebinds its listeners, which costs a few
 * connection resets under load for every host it serves (STACK.md). So writes are kept to what
 * changed: an upstream switch is a single PATCH of the route.
 *
 * On a failed step (e.g. another agent created the server a moment earlier: Caddy answers 500
 * to a PUT on an existing key) the provider reads the config again and re-plans once; a second
 * failure is thrown.
 */
import { change, type CallOptions, type Change } from '../change.js';
import { EdgeError, isEdgeError } from '../edge-error.js';
import { hostOf, requestJson, type HttpEndpoint } from '../http-json.js';
import { checkRouteId } from '../names.js';
import { normalizeRoute, type ProxyProvider, type ProxyRoute } from '../proxy-provider.js';
import type { Readiness } from '../readiness.js';
import { planRemove, planUpsert, readRoutes, type CaddyApps, type CaddyLayout, type CaddyPlan } from './caddy-config.js';

export interface CaddyProxyOptions {
  /** `http://127.0.0.1:2019` */
  readonly adminUrl: string;
  /** Default 80 / 443. */
  readonly httpPort?: number;
  readonly httpsPort?: number;
  /** Address denv's listeners bind; default all interfaces. Tests and `denv dev` use 127.0.0.1. */
  readonly bindHost?: string;
  /** denv's server under apps.http.servers; default `denv`. */
  readonly server?: string;
  /** Per HTTP call; default 10 s. */
  readonly timeoutMs?: number;
}

export class CaddyProxy implements ProxyProvider {
  readonly kind = 'caddy' as const;
  readonly endpoint: string;
  private readonly api: HttpEndpoint;
  private readonly layout: CaddyLayout;

  constructor(o: CaddyProxyOptions) {
    this.api = { baseUrl: o.adminUrl, label: `caddy admin API at ${hostOf(o.adminUrl)}`, timeoutMs: o.timeoutMs ?? 10_000, secrets: [] };
    this.endpoint = this.api.label;
    this.layout = { server: o.server ?? 'denv', httpPort: o.httpPort ?? 80, httpsPort: o.httpsPort ?? 443, bindHost: o.bindHost ?? '' };
  }

  async readiness(o: CallOptions = {}): Promise<Readiness> {
    const base = { provider: this.kind, endpoint: this.api.label };
    try {
      const apps = await this.readApps(o);
      const server = (apps?.http as { servers?: Record<string, { listen?: unknown }> } | undefined)?.servers?.[this.layout.server];
      const routes = readRoutes(apps, this.layout).length;
      const listen = Array.isArray(server?.listen) ? server.listen.join(', ') : null;
      const detail = server ? `server ${this.layout.server} listens on ${listen}, ${routes} denv route(s)` : `answers; server ${this.layout.server} will be created on ports ${this.layout.httpPort} and ${this.layout.httpsPort} with the first route`;
      return { ...base, ready: true, detail, facts: { server: server ? this.layout.server : null, listen, routes } };
    } catch (err) {
      return { ...base, ready: false, detail: isEdgeError(err) ? err.message : String(err), facts: {} };
    }
  }

  async upsertRoute(route: ProxyRoute, o: CallOptions = {}): Promise<Change> {
    const r = normalizeRoute(route);
    return this.converge((apps) => planUpsert(apps, r, this.layout), (plan) => (plan.existed ? 'updated' : 'created'), o);
  }

  async removeRoute(id: string, o: CallOptions = {}): Promise<Change> {
    checkRouteId(id);
    return this.converge((apps) => planRemove(apps, id, this.layout), () => 'removed', o);
  }

  async listRoutes(o: CallOptions = {}): Promise<readonly ProxyRoute[]> {
    return readRoutes(await this.readApps(o), this.layout);
  }

  private async converge(plan: (apps: CaddyApps) => CaddyPlan, done: (plan: CaddyPlan) => 'created' | 'updated' | 'removed', o: CallOptions): Promise<Change> {
    const first = plan(await this.readApps(o));
    if (first.steps.length === 0) return change(first.existed ? 'unchanged' : 'absent');
    const applied: string[] = [];
    try {
      await this.send(first, applied, o);
    } catch (err) {
      if (!isEdgeError(err) || err.reason !== 'rejected') throw err;
      // Someone else changed Caddy between our read and our write: read again, plan again, once.
      const again = plan(await this.readApps(o));
      await this.send(again, applied, o);
      if (applied.length === 0) return change(again.existed ? 'unchanged' : 'absent');
    }
    return change(done(first), [...new Set(applied)]);
  }

  private async send(plan: CaddyPlan, applied: string[], o: CallOptions): Promise<void> {
    for (const step of plan.steps) {
      await requestJson(this.api, { method: step.method, path: step.path, body: step.body, signal: o.signal });
      applied.push(step.what);
    }
  }

  private async readApps(o: CallOptions): Promise<CaddyApps> {
    const res = await requestJson(this.api, { method: 'GET', path: '/config/apps', signal: o.signal });
    if (res.body !== null && (typeof res.body !== 'object' || Array.isArray(res.body))) {
      throw new EdgeError('protocol', `${this.api.label}: GET /config/apps answered ${JSON.stringify(res.body).slice(0, 100)}, not an object: is this Caddy's admin API?`);
    }
    return res.body as CaddyApps;
  }
}
