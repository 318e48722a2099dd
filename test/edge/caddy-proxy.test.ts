/**
 * The caddy provider against a real Caddy (test/helpers/caddy.ts: loopback only, no ACME
 * traffic leaving the machine). Requests go through Caddy to real local HTTP servers.
 */
import http from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaddyProxy } from '../../src/edge/caddy/caddy-proxy.js';
import { EdgeError } from '../../src/edge/edge-error.js';
import type { ProxyRoute } from '../../src/edge/proxy-provider.js';
import { adminCall, freeLoopbackPort, httpGet, httpsGet, startCaddy, type Answer, type TestCaddy } from '../helpers/caddy.js';

let caddy: TestCaddy;
let proxy: CaddyProxy;
const upstreams: http.Server[] = [];
let blue: number;
let green: number;

/** An upstream answering its name and the Host it saw. */
async function upstream(name: string): Promise<number> {
  const s = http.createServer((req, res) => res.end(`${name} ${req.headers.host}`));
  upstreams.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as { port: number }).port;
}

let sentinels = 0;
/**
 * Admin writes Caddy logged (each one is a new config) since log offset `from`. Caddy's log
 * reaches us through a pipe, a little later: a GET with a unique query goes last, and the lines
 * are read once it shows up, so every earlier request is in.
 */
async function adminWrites(from: number): Promise<string[]> {
  const mark = `sentinel=${++sentinels}`;
  await adminCall(caddy, 'GET', `/config/?${mark}`);
  await expect.poll(() => caddy.log().includes(mark), { timeout: 5000 }).toBe(true);
  return caddy
    .log()
    .slice(from)
    .split('\n')
    .filter((l) => l.includes('"logger":"admin.api"') && l.includes('received request') && /"method":"(PUT|PATCH|POST|DELETE)"/.test(l));
}

/** Caddy loads a new config and issues certificates asynchronously: ask again for a few seconds. */
async function eventually(get: () => Promise<Answer>, ok: (a: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 10_000;
  let last: Answer | Error = new Error('no attempt');
  while (Date.now() < deadline) {
    try {
      last = await get();
      if (ok(last)) return last;
    } catch (err) {
      last = err as Error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no good answer within 10 s; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
}

beforeAll(async () => {
  caddy = await startCaddy();
  proxy = new CaddyProxy({ adminUrl: caddy.adminUrl, httpPort: caddy.httpPort, httpsPort: caddy.httpsPort, bindHost: '127.0.0.1' });
  blue = await upstream('blue');
  green = await upstream('green');
});

afterAll(async () => {
  await caddy?.stop();
  for (const s of upstreams) s.close();
});

const plain: ProxyRoute = { id: 'env1.web', hostnames: ['plain.example.test'], upstreams: [], tls: 'off' };

describe('caddy provider, real Caddy', () => {
  it('readiness on a fresh Caddy: ready, says the server will be created, changes nothing', async () => {
    const before = caddy.log().length;
    const r = await proxy.readiness();
    expect(r).toMatchObject({ ready: true, provider: 'caddy', endpoint: `caddy admin API at 127.0.0.1:${new URL(caddy.adminUrl).port}`, facts: { server: null, routes: 0 } });
    expect(r.detail).toContain('will be created');
    expect(await adminWrites(before)).toEqual([]);
  });

  it('tls off: a hostname answers through Caddy over HTTP with its Host header; unknown hosts get 404', async () => {
    const first = await proxy.upsertRoute({ ...plain, upstreams: [{ host: '127.0.0.1', port: blue }] });
    expect(first).toMatchObject({ changed: true, action: 'created' });
    const a = await eventually(() => httpGet(caddy.httpPort, 'plain.example.test', '/x'), (x) => x.status === 200);
    expect(a.body).toBe('blue plain.example.test');
    expect((await httpGet(caddy.httpPort, 'nobody.example.test')).status).toBe(404);
    // Plain HTTP only: no certificate was asked for, so a TLS handshake for the name fails.
    await expect(httpsGet(caddy.httpsPort, 'plain.example.test')).rejects.toThrow();
  });

  it('the same upsert again reports unchanged and writes nothing', async () => {
    const before = caddy.log().length;
    expect(await proxy.upsertRoute({ ...plain, upstreams: [{ host: '127.0.0.1', port: blue }] })).toEqual({ changed: false, action: 'unchanged', touched: [] });
    expect(await adminWrites(before)).toEqual([]);
  });

  it('switching the upstream is one config change, and the next request reaches the new upstream', async () => {
    const before = caddy.log().length;
    const c = await proxy.upsertRoute({ ...plain, upstreams: [{ host: '127.0.0.1', port: green }] });
    expect(c).toEqual({ changed: true, action: 'updated', touched: ['route denv-route-env1.web'] });
    expect(await adminWrites(before)).toHaveLength(1);
    expect((await httpGet(caddy.httpPort, 'plain.example.test')).body).toBe('green plain.example.test');
  });

  it('tls internal: HTTPS with a certificate from Caddy’s own CA (SNI + that CA only), and HTTP too', async () => {
    const c = await proxy.upsertRoute({ id: 'env1.api', hostnames: ['secure.example.test', 'www.secure.example.test'], upstreams: [{ host: '127.0.0.1', port: blue }], tls: 'internal' });
    expect(c.action).toBe('created');
    expect(c.touched).toEqual(['tls policy denv-tls-env1.api', 'route denv-route-env1.api']);
    const a = await eventually(() => httpsGet(caddy.httpsPort, 'secure.example.test', caddy.rootCa()), (x) => x.status === 200);
    expect(a.body).toBe('blue secure.example.test');
    expect((await httpsGet(caddy.httpsPort, 'www.secure.example.test', caddy.rootCa())).body).toBe('blue www.secure.example.test');
    expect((await httpGet(caddy.httpPort, 'secure.example.test')).body).toBe('blue secure.example.test');
    const pem = (await adminCall(caddy, 'GET', '/pki/ca/local')).json as { root_certificate: string };
    expect(pem.root_certificate.trim()).toBe(caddy.rootCa().trim());
  });

  it('tls auto: HTTP answers Caddy’s redirect to HTTPS (its ACME attempt can only reach the loopback trap)', async () => {
    await proxy.upsertRoute({ id: 'env1.auto', hostnames: ['auto.example.test'], upstreams: [{ host: '127.0.0.1', port: blue }], tls: 'auto' });
    const a = await eventually(() => httpGet(caddy.httpPort, 'auto.example.test', '/p?q=1'), (x) => x.status === 308);
    expect(a.headers.location).toMatch(/^https:\/\/auto\.example\.test(:\d+)?\/p\?q=1$/);
    expect(await proxy.removeRoute('env1.auto')).toMatchObject({ action: 'removed' });
  });

  it('listRoutes shows only denv’s routes, read back as upserted', async () => {
    const foreign = { '@id': 'someone-else', match: [{ host: ['other.example.test'] }], handle: [{ handler: 'static_response', body: 'theirs' }] };
    expect((await adminCall(caddy, 'PUT', '/config/apps/http/servers/denv/routes/0', foreign)).status).toBe(200);
    expect(await proxy.listRoutes()).toEqual([
      { id: 'env1.api', hostnames: ['secure.example.test', 'www.secure.example.test'], upstreams: [{ host: '127.0.0.1', port: blue }], tls: 'internal' },
      { id: 'env1.web', hostnames: ['plain.example.test'], upstreams: [{ host: '127.0.0.1', port: green }], tls: 'off' },
    ]);
    const r = await proxy.readiness();
    expect(r.facts).toMatchObject({ server: 'denv', routes: 2 });
  });

  it('remove: the hostname gets 404, the TLS policy is gone, a second remove is absent; others stay', async () => {
    expect(await proxy.removeRoute('env1.api')).toEqual({ changed: true, action: 'removed', touched: ['route denv-route-env1.api', 'tls policy denv-tls-env1.api'] });
    expect((await httpGet(caddy.httpPort, 'secure.example.test')).status).toBe(404);
    const policies = (await adminCall(caddy, 'GET', '/config/apps/tls/automation/policies')).json;
    expect(JSON.stringify(policies)).not.toContain('denv-tls-env1.api');
    expect(await proxy.removeRoute('env1.api')).toEqual({ changed: false, action: 'absent', touched: [] });
    expect((await httpGet(caddy.httpPort, 'other.example.test')).body).toBe('theirs');
    expect((await proxy.listRoutes()).map((r) => r.id)).toEqual(['env1.web']);
  });

  it('no ACME request went anywhere but the loopback trap', () => {
    expect(caddy.acmeOutsideAttempts()).toEqual([]);
  });
});

describe('caddy provider errors', () => {
  it('an admin API that refuses connections: readiness says so, calls throw a retryable EdgeError', async () => {
    const port = await freeLoopbackPort();
    const p = new CaddyProxy({ adminUrl: `http://127.0.0.1:${port}` });
    const r = await p.readiness();
    expect(r).toMatchObject({ ready: false, detail: `caddy admin API at 127.0.0.1:${port}: connection refused` });
    const err = await p.upsertRoute({ ...plain, upstreams: [{ host: '127.0.0.1', port: 1 }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect(err).toMatchObject({ reason: 'unreachable', retryable: true, message: `caddy admin API at 127.0.0.1:${port}: connection refused` });
  });

  it('an admin API that never answers: the call times out', async () => {
    const silent: Server = createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    const port = (silent.address() as { port: number }).port;
    const p = new CaddyProxy({ adminUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });
    const t0 = Date.now();
    await expect(p.listRoutes()).rejects.toMatchObject({ reason: 'timeout', message: `caddy admin API at 127.0.0.1:${port}: GET /config/apps timed out after 300 ms` });
    expect(Date.now() - t0).toBeLessThan(3000);
    silent.close();
  });

  it('refuses invalid routes before calling Caddy', async () => {
    await expect(proxy.upsertRoute({ ...plain, hostnames: ['*.example.test'], upstreams: [{ host: '127.0.0.1', port: 1 }] })).rejects.toMatchObject({ reason: 'invalid' });
    await expect(proxy.upsertRoute({ ...plain, id: 'Bad/Id', upstreams: [{ host: '127.0.0.1', port: 1 }] })).rejects.toMatchObject({ reason: 'invalid' });
    await expect(proxy.upsertRoute({ ...plain, upstreams: [] })).rejects.toMatchObject({ reason: 'invalid' });
  });
});
