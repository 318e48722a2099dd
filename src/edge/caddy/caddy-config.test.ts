import { describe, expect, it } from 'vitest';
import { caddyRoute, caddyServer, caddyTlsPolicy, planRemove, planUpsert, readRoutes, type CaddyApps, type CaddyLayout } from './caddy-config.js';
import type { ProxyRoute } from '../proxy-provider.js';

const layout: CaddyLayout = { server: 'denv', httpPort: 80, httpsPort: 443, bindHost: '' };
const route = (over: Partial<ProxyRoute> = {}): ProxyRoute => ({ id: 'env1.web', hostnames: ['app.example.com'], upstreams: [{ host: '127.0.0.1', port: 8001 }], tls: 'internal', ...over });

/** Caddy's apps after `steps` ran, for the "re-run plans nothing" checks. */
function appsWith(r: ProxyRoute): CaddyApps {
  const policy = caddyTlsPolicy(r);
  return {
    http: { http_port: 80, https_port: 443, servers: { denv: { ...caddyServer(layout), routes: [caddyRoute(r), ...(caddyServer(layout).routes as unknown[])] } } },
    pki: { certificate_authorities: { local: { install_trust: false } } },
    ...(policy ? { tls: { automation: { policies: [policy] } } } : {}),
  };
}

describe('caddy route JSON', () => {
  it('internal: host matcher on both ports, reverse_proxy, and a policy with the internal issuer', () => {
    expect(caddyRoute(route())).toEqual({
      '@id': 'denv-route-env1.web',
      match: [{ host: ['app.example.com'] }],
      handle: [{ handler: 'reverse_proxy', transport: { protocol: 'http', keep_alive: { enabled: false } }, upstreams: [{ dial: '127.0.0.1:8001' }] }],
      terminal: true,
    });
    expect(caddyTlsPolicy(route())).toEqual({ '@id': 'denv-tls-env1.web', subjects: ['app.example.com'], issuers: [{ module: 'internal' }] });
  });

  it('auto: HTTPS only (Caddy redirects HTTP), default ACME issuers: no policy of denv', () => {
    const r = route({ tls: 'auto', upstreams: [{ host: '::1', port: 9000 }, { host: '10.0.0.2', port: 9001 }] });
    expect(caddyRoute(r)).toEqual({
      '@id': 'denv-route-env1.web',
      match: [{ host: ['app.example.com'], protocol: 'https' }],
      handle: [{ handler: 'reverse_proxy', transport: { protocol: 'http', keep_alive: { enabled: false } }, upstreams: [{ dial: '[::1]:9000' }, { dial: '10.0.0.2:9001' }] }],
      terminal: true,
    });
    expect(caddyTlsPolicy(r)).toBeNull();
    const steps = planUpsert(null, r, layout).steps;
    expect(steps.map((s) => `${s.method} ${s.path}`)).toEqual(['PUT /config/apps/http', 'PUT /config/apps/http/servers/denv/routes/0']);
    expect(JSON.stringify(steps)).not.toMatch(/issuer|acme|tls\/automation/);
  });

  it('off: plain HTTP, matched on the Host without a host matcher (no certificate is requested)', () => {
    expect(caddyRoute(route({ tls: 'off' })).match).toEqual([{ protocol: 'http', vars: { '{http.request.host}': ['app.example.com'] } }]);
    expect(caddyTlsPolicy(route({ tls: 'off' }))).toBeNull();
  });

  it('server: both ports on the bind address, HTTP/1.1 and 2, a 404 fallback last', () => {
    expect(caddyServer({ ...layout, bindHost: '127.0.0.1', httpPort: 8080, httpsPort: 8443 })).toEqual({
      listen: ['127.0.0.1:8080', '127.0.0.1:8443'],
      protocols: ['h1', 'h2'],
      routes: [{ '@id': 'denv-fallback', handle: [{ handler: 'static_response', status_code: 404 }] }],
    });
  });
});

describe('planUpsert', () => {
  it('on an empty Caddy: server, install_trust, the policy before the route', () => {
    const plan = planUpsert(null, route(), layout);
    expect(plan.existed).toBe(false);
    expect(plan.steps).toEqual([
      { method: 'PUT', path: '/config/apps/http', body: { http_port: 80, https_port: 443, servers: { denv: caddyServer(layout) } }, what: 'server denv' },
      { method: 'PUT', path: '/config/apps/pki/certificate_authorities/local/install_trust', body: false, what: 'pki local install_trust' },
      { method: 'PUT', path: '/config/apps/tls/automation/policies', body: [caddyTlsPolicy(route())], what: 'tls policy denv-tls-env1.web' },
      { method: 'PUT', path: '/config/apps/http/servers/denv/routes/0', body: caddyRoute(route()), what: 'route denv-route-env1.web' },
    ]);
  });

  it('beside an existing http app and policies: adds the server, inserts the policy first (before any catch-all)', () => {
    const apps = { http: { servers: { other: { listen: [':8080'] } } }, tls: { automation: { policies: [{ issuers: [{ module: 'acme' }] }] } }, pki: { certificate_authorities: { local: { install_trust: true } } } };
    expect(planUpsert(apps, route(), layout).steps.map((s) => `${s.method} ${s.path}`)).toEqual([
      'PUT /config/apps/http/servers/denv',
      'PATCH /config/apps/pki/certificate_authorities/local/install_trust',
      'PUT /config/apps/tls/automation/policies/0',
      'PUT /config/apps/http/servers/denv/routes/0',
    ]);
  });

  it('a re-run plans nothing', () => {
    for (const tls of ['internal', 'auto', 'off'] as const) expect(planUpsert(appsWith(route({ tls })), route({ tls }), layout)).toEqual({ steps: [], existed: true });
  });

  it('a new upstream is one PATCH of the route and nothing else', () => {
    const plan = planUpsert(appsWith(route()), route({ upstreams: [{ host: '127.0.0.1', port: 8002 }] }), layout);
    expect(plan.steps).toEqual([{ method: 'PATCH', path: '/id/denv-route-env1.web', body: caddyRoute(route({ upstreams: [{ host: '127.0.0.1', port: 8002 }] })), what: 'route denv-route-env1.web' }]);
  });

  it('internal → auto: the route changes first, then the policy goes', () => {
    expect(planUpsert(appsWith(route()), route({ tls: 'auto' }), layout).steps.map((s) => `${s.method} ${s.path}`)).toEqual(['PATCH /id/denv-route-env1.web', 'DELETE /id/denv-tls-env1.web']);
  });

  it('off → internal: the policy comes before the route', () => {
    expect(planUpsert(appsWith(route({ tls: 'off' })), route(), layout).steps.map((s) => `${s.method} ${s.path}`)).toEqual(['PUT /config/apps/tls/automation/policies', 'PATCH /id/denv-route-env1.web']);
  });

  it('collapses duplicate routes (two agents inserting at once) to one', () => {
    const apps = appsWith(route());
    const srv = (apps as { http: { servers: { denv: { routes: unknown[] } } } }).http.servers.denv;
    srv.routes = [caddyRoute(route()), ...srv.routes];
    expect(planUpsert(apps, route(), layout).steps.map((s) => `${s.method} ${s.path}`)).toEqual(['DELETE /id/denv-route-env1.web']);
  });
});

describe('planRemove and readRoutes', () => {
  it('removes the route and its policy; nothing when absent', () => {
    expect(planRemove(appsWith(route()), 'env1.web', layout)).toEqual({
      existed: true,
      steps: [
        { method: 'DELETE', path: '/id/denv-route-env1.web', what: 'route denv-route-env1.web' },
        { method: 'DELETE', path: '/id/denv-tls-env1.web', what: 'tls policy denv-tls-env1.web' },
      ],
    });
    expect(planRemove(null, 'env1.web', layout)).toEqual({ existed: false, steps: [] });
  });

  it('reads back only denv routes, as they were upserted', () => {
    const apps = appsWith(route());
    const srv = (apps as { http: { servers: { denv: { routes: unknown[] } } } }).http.servers.denv;
    srv.routes.unshift({ '@id': 'someone-else', match: [{ host: ['x.example.com'] }] }, caddyRoute(route({ id: 'b', tls: 'off', hostnames: ['b.example.com'] })), caddyRoute(route({ id: 'c', tls: 'auto', upstreams: [{ host: '::1', port: 1 }] })));
    expect(readRoutes(apps, layout)).toEqual([
      route({ id: 'b', tls: 'off', hostnames: ['b.example.com'] }),
      route({ id: 'c', tls: 'auto', upstreams: [{ host: '::1', port: 1 }] }),
      route(),
    ]);
  });
});
