/**
 * The npmplus provider — CONTRACT-TESTED ONLY: no real NPMplus runs here. The server is
 * test/helpers/npmplus-server.ts, which speaks the endpoints denv uses as NPMplus's published
 * API schema and routes define them; these tests assert the exact requests the provider makes
 * (paths, methods, credentials, bodies) and what it makes of the answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EdgeError } from '../../src/edge/edge-error.js';
import { NpmplusProxy } from '../../src/edge/npmplus/npmplus-proxy.js';
import type { ProxyRoute } from '../../src/edge/proxy-provider.js';
import { startFakeNpmplus, type FakeNpmplus } from '../helpers/npmplus-server.js';

const EMAIL = 'denv@example.test';
const PASSWORD = 'npm-password-8d1f3a';
let npm: FakeNpmplus;

afterEach(async () => {
  await npm?.close();
});

const route: ProxyRoute = { id: 'env1.web', hostnames: ['App.example.test'], upstreams: [{ host: '10.0.0.5', port: 8001 }], tls: 'off' };
const writes = () => npm.requests.filter((r) => r.method !== 'GET' && r.path !== '/api/tokens').map((r) => `${r.method} ${r.path}`);

describe('npmplus provider (contract tests against a local server speaking the NPMplus API)', () => {
  it('logs in with email and password, then sends the __Host-Http-token cookie NPMplus set', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    const r = await p.readiness();
    expect(r).toMatchObject({ ready: true, provider: 'npmplus', endpoint: `npmplus API at ${new URL(npm.url).host}`, facts: { version: '2.12.0', status: 'OK', routes: 0 } });
    expect(npm.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api', 'POST /api/tokens', 'GET /api/nginx/proxy-hosts']);
    expect(npm.requests[0]!.headers.cookie).toBeUndefined();
    expect(npm.requests[1]!.body).toEqual({ identity: EMAIL, secret: PASSWORD });
    expect(npm.requests[2]!.headers.cookie).toMatch(/^__Host-Http-token=s%3AeyJ[0-9a-f]+\.[0-9a-f]+$/);
    expect(npm.requests[2]!.headers.authorization).toBeUndefined();
  });

  it('Nginx Proxy Manager’s body token goes out as a Bearer header', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD, mode: 'bearer' });
    await new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD }).listRoutes();
    expect(npm.requests.at(-1)!.headers.authorization).toMatch(/^Bearer eyJ[0-9a-f]+$/);
  });

  it('upsert creates one proxy host with exactly the documented fields; a re-run writes nothing', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    expect(await p.upsertRoute(route)).toEqual({ changed: true, action: 'created', touched: ['proxy host 1'] });
    const post = npm.requests.find((q) => q.method === 'POST' && q.path === '/api/nginx/proxy-hosts')!;
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.body).toEqual({
      domain_names: ['app.example.test'],
      forward_scheme: 'http',
      forward_host: '10.0.0.5',
      forward_port: 8001,
      certificate_id: 0,
      ssl_forced: false,
      allow_websocket_upgrade: true,
      advanced_config: '# denv-route: env1.web',
    });
    const before = writes().length;
    expect(await p.upsertRoute(route)).toEqual({ changed: false, action: 'unchanged', touched: [] });
    expect(writes()).toHaveLength(before);
    expect(npm.requests.filter((q) => q.path === '/api/tokens')).toHaveLength(1);
  });

  it('a new upstream is one PUT of the host', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    await p.upsertRoute(route);
    const from = writes().length;
    expect(await p.upsertRoute({ ...route, upstreams: [{ host: '10.0.0.5', port: 8002 }] })).toEqual({ changed: true, action: 'updated', touched: ['proxy host 1'] });
    expect(writes().slice(from)).toEqual(['PUT /api/nginx/proxy-hosts/1']);
    expect(npm.hosts.get(1)).toMatchObject({ forward_port: 8002, domain_names: ['app.example.test'] });
    expect(await p.listRoutes()).toEqual([{ ...route, hostnames: ['app.example.test'], upstreams: [{ host: '10.0.0.5', port: 8002 }] }]);
  });

  it('tls auto asks for a new certificate once and keeps the one NPMplus issued', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    await p.upsertRoute({ ...route, tls: 'auto' });
    expect(npm.requests.find((q) => q.method === 'POST' && q.path === '/api/nginx/proxy-hosts')!.body).toMatchObject({ certificate_id: 'new', ssl_forced: true });
    expect(npm.hosts.get(1)!.certificate_id).toBe(100);
    expect(await p.upsertRoute({ ...route, tls: 'auto' })).toMatchObject({ action: 'unchanged' });
    await p.upsertRoute({ ...route, tls: 'auto', upstreams: [{ host: '10.0.0.6', port: 8001 }] });
    expect(npm.requests.at(-1)!.body).toMatchObject({ certificate_id: 100, forward_host: '10.0.0.6' });
    expect((await p.listRoutes())[0]!.tls).toBe('auto');
  });

  it('refuses tls internal and several upstreams before sending anything', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    await expect(p.upsertRoute({ ...route, tls: 'internal' })).rejects.toMatchObject({ reason: 'unsupported', retryable: false });
    await expect(p.upsertRoute({ ...route, upstreams: [route.upstreams[0]!, { host: '10.0.0.6', port: 1 }] })).rejects.toMatchObject({ reason: 'unsupported' });
    expect(npm.requests).toEqual([]);
  });

  it('hosts a person made are not denv’s: not listed, never changed, a shared domain is a conflict', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const foreign = npm.addForeignHost({ domain_names: ['app.example.test'], forward_host: '10.9.9.9', forward_port: 80 });
    npm.addForeignHost({ domain_names: ['blog.example.test'], forward_host: '10.9.9.9', forward_port: 81, advanced_config: 'client_max_body_size 10m;' });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    expect(await p.listRoutes()).toEqual([]);
    const err = await p.upsertRoute(route).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect(err).toMatchObject({ reason: 'conflict', message: `npmplus API at ${new URL(npm.url).host}: app.example.test is served by proxy host ${foreign}, which denv did not create` });
    expect(writes()).toEqual([]);
  });

  it('remove deletes denv’s host; a second remove is absent', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    await p.upsertRoute(route);
    expect(await p.removeRoute('env1.web')).toEqual({ changed: true, action: 'removed', touched: ['proxy host 1'] });
    expect(writes().at(-1)).toBe('DELETE /api/nginx/proxy-hosts/1');
    expect(npm.hosts.size).toBe(0);
    expect(await p.removeRoute('env1.web')).toEqual({ changed: false, action: 'absent', touched: [] });
  });

  it('an expired token: one new login, then the call goes through', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD });
    await p.listRoutes();
    npm.expireTokens();
    expect(await p.upsertRoute(route)).toMatchObject({ action: 'created' });
    expect(npm.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /api/tokens',
      'GET /api/nginx/proxy-hosts',
      'GET /api/nginx/proxy-hosts',
      'POST /api/tokens',
      'GET /api/nginx/proxy-hosts',
      'POST /api/nginx/proxy-hosts',
    ]);
  });

  it('a wrong password: not ready, unauthorized, and the password is in no message', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD });
    const p = new NpmplusProxy({ url: npm.url, email: EMAIL, password: 'wrong-password-77aa' });
    const r = await p.readiness();
    expect(r).toMatchObject({ ready: false, detail: `npmplus API at ${new URL(npm.url).host}: POST /api/tokens answered 401: Invalid email or password (login as ${EMAIL} refused: check the email and password)` });
    const err = (await p.upsertRoute(route).catch((e: unknown) => e)) as EdgeError;
    expect(err).toMatchObject({ reason: 'unauthorized', retryable: false });
    for (const text of [r.detail, err.message, String(err.stack)]) expect(text).not.toMatch(/wrong-password-77aa|npm-password-8d1f3a/);
  });

  it('an account with a second factor is refused with that reason', async () => {
    npm = await startFakeNpmplus({ email: EMAIL, password: PASSWORD, twoFactor: true });
    await expect(new NpmplusProxy({ url: npm.url, email: EMAIL, password: PASSWORD }).listRoutes()).rejects.toMatchObject({ reason: 'unsupported', message: `npmplus API at ${new URL(npm.url).host}: the account ${EMAIL} needs a second factor; give denv an account without 2FA` });
  });
});
