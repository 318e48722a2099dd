/**
 * The edge wired end to end (issue 12): a real control plane, a real agent process, Debian's
 * Caddy and PowerDNS started by the test on loopback, and process services deployed through
 * the API. The team's settings point at them (`PUT /v1/edge`); the agent publishes its envs at
 * `public_ip: 192.0.2.10` (a documentation address: DNS answers it, nothing dials it) and binds
 * Caddy's listeners to 127.0.0.1 (`proxy_bind`).
 *
 * What it shows: a production hostname answers through Caddy and resolves in PowerDNS after a
 * deploy, with `ingress` evidence {endpoints, names, proxy, dns}; a second deploy moves the route
 * in one write and drains the old version before it stops; a preview env gets
 * `<env>.<project>.<base>` and never production's names; a fork is published by the edge sweep and destroying it removes its route and name; a proxy outage leaves the deploy
 * succeeded and the env's edge `degraded`, and the edge sweep converges once a proxy answers;
 * stop removes the route and the record; three deploys under continuous GET and POST traffic drop
 * no request (the host's edge relay switches versions; Caddy is never reloaded).
 */
import dns from 'node:dns';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../../src/contracts/domain.js';
import { waitFor } from '../helpers/api.js';
import { adminCall, httpGet, startCaddy, type TestCaddy } from '../helpers/caddy.js';
import { relayPids, startHarness, type Harness } from '../helpers/harness.js';
import { startPowerDns, type TestPowerDns } from '../helpers/pdns.js';
import { freshDataDir } from '../helpers/stores.js';

const APP = fileURLToPath(new URL('../fixtures/app.js', import.meta.url));
const PUBLIC_IP = '192.0.2.10';

const compose = (version: string) => ({
  services: {
    web: {
      command: ['node', APP],
      environment: { VERSION: version },
      'x-denv': { health: { path: '/healthz', timeout: '10s' }, edge: { hostnames: ['shop.example.test'], tls: 'off', drain: '300ms' } },
    },
  },
});

let h: Harness;
let caddy: TestCaddy;
let pdns: TestPowerDns;
let resolver: dns.promises.Resolver;
const resolve4 = (name: string) => resolver.resolve4(name).then((a) => a.sort(), (e: NodeJS.ErrnoException) => e.code);

async function deploy(env: string, version: string): Promise<Deployment> {
  const res = await h.api.post('/v1/projects/shop/deploy', { compose: compose(version), env });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return h.api.finished(res.body.deployment.id);
}
const phase = (d: Deployment, name: string) => d.phases.find((p) => p.name === name)!;
const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;

async function setProxy(c: TestCaddy): Promise<void> {
  const res = await h.api.put('/v1/edge', { proxy: { provider: 'caddy', admin_url: c.adminUrl, http_port: c.httpPort, https_port: c.httpsPort } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  [caddy, pdns] = await Promise.all([startCaddy(), startPowerDns()]);
  await pdns.createZone('example.test');
  resolver = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${pdns.dnsPort}`]);
  const config = join(freshDataDir(), 'agent.yaml');
  writeFileSync(config, `public_ip: ${PUBLIC_IP}\nproxy_bind: 127.0.0.1\n`);
  h = await startHarness({ agentConfig: config, cp: { edgeSweep: { everyMs: 250, retryMs: 250, recheckMs: 2000 } } });
  await h.api.post('/v1/projects', { name: 'shop' });
  const res = await h.api.put('/v1/edge', {
    base_domain: 'apps.example.test',
    proxy: { provider: 'caddy', admin_url: caddy.adminUrl, http_port: caddy.httpPort, https_port: caddy.httpsPort },
    dns: { provider: 'powerdns', api_url: pdns.apiUrl, api_key: pdns.apiKey, zone: 'example.test' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([caddy?.stop(), pdns?.stop()]);
});

describe('edge: deploys on hostnames through Caddy and PowerDNS', () => {
  let prodEnv = '';

  it('a production deploy answers on its hostname through Caddy, resolves to the host, and says so in ingress', async () => {
    const dep = await deploy('production', 'v1');
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    prodEnv = dep.env;
    const ingress = phase(dep, 'ingress');
    expect(ingress.status).toBe('ok');
    const routeId = `${dep.env}.web`;
    expect(ingress.evidence).toMatchObject({
      names: ['shop.example.test'],
      degraded: false,
      proxy: { provider: 'caddy', status: 'ok', changes: [{ key: routeId, action: 'created' }] },
      dns: { provider: 'powerdns', status: 'ok', addresses: [PUBLIC_IP], changes: [{ key: 'shop.example.test', action: 'created' }] },
    });
    const endpoints = (ingress.evidence as { endpoints: { service: string; url: string; public: string[] }[] }).endpoints;
    expect(endpoints).toEqual([{ service: 'web', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), public: ['http://shop.example.test'] }]);

    const answer = await httpGet(caddy.httpPort, 'shop.example.test');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^v1 \d+/);
    expect(await resolve4('shop.example.test')).toEqual([PUBLIC_IP]);

    const env = await envOf(dep.env);
    expect(env.endpoints).toEqual(endpoints);
    expect(env.edge).toMatchObject({ status: 'ok', names: ['shop.example.test'], proxy: { provider: 'caddy', status: 'ok' }, dns: { provider: 'powerdns', status: 'ok', addresses: [PUBLIC_IP] } });
  });

  it('a second deploy switches the route to the new version without a proxy write and drains the old one before stopping it', async () => {
    const dep = await deploy('production', 'v2');
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    // The Caddy route is not rewritten (no reload): the host's edge relay switched its target.
    expect(phase(dep, 'ingress').evidence).toMatchObject({
      proxy: { status: 'ok', changes: [{ key: `${prodEnv}.web`, action: 'unchanged' }], switched: [{ key: `${prodEnv}.web`, from: expect.any(Number), to: expect.any(Number) }] },
      dns: { status: 'ok', changes: [{ key: 'shop.example.test', action: 'unchanged' }] },
    });
    expect(phase(dep, 'verdict').evidence).toMatchObject({ drained_ms: 300 });
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v2 \d+/);
  });

  it('a preview env gets <env>.<project>.<base domain>, never production’s hostnames', async () => {
    const dep = await deploy('pr-7', 'preview');
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(phase(dep, 'ingress').evidence).toMatchObject({ names: ['pr-7.shop.apps.example.test'], proxy: { status: 'ok' } });
    expect((await httpGet(caddy.httpPort, 'pr-7.shop.apps.example.test')).body).toMatch(/^preview \d+/);
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v2 \d+/);
    expect(await resolve4('pr-7.shop.apps.example.test')).toEqual([PUBLIC_IP]);
    const env = await envOf(dep.env);
    expect(env.endpoints[0]!.public).toEqual(['http://pr-7.shop.apps.example.test']);
  });

  it("a project's own base domain moves its preview's hostname (the sweep re-applies), and clearing it moves it back", async () => {
    const previewId = (await h.api.get('/v1/envs?name=pr-7')).body.items[0].id as string;
    const patch = async (base_domain: string | null) => {
      const res = await h.api.req('PATCH', '/v1/projects/shop', { base_domain });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const servedAt = async (name: string) => {
      const env = await waitFor(async () => {
        const e = await envOf(previewId);
        return e.edge?.names?.[0] === name && e.edge.status === 'ok' ? e : undefined;
      }, 30_000, `the sweep to publish ${name}`);
      expect(env.endpoints[0]!.public).toEqual([`http://${name}`]);
      expect((await httpGet(caddy.httpPort, name)).body).toMatch(/^preview \d+/);
      expect(await resolve4(name)).toEqual([PUBLIC_IP]);
    };
    await patch('previews.example.test');
    await servedAt('pr-7.shop.previews.example.test');
    // The team's name is gone from Caddy and from DNS; production keeps its own hostname.
    expect((await httpGet(caddy.httpPort, 'pr-7.shop.apps.example.test')).status).toBe(404);
    expect(await resolve4('pr-7.shop.apps.example.test')).toBe('ENOTFOUND');
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v2 \d+/);
    await patch(null);
    await servedAt('pr-7.shop.apps.example.test');
    expect((await httpGet(caddy.httpPort, 'pr-7.shop.previews.example.test')).status).toBe(404);
  });

  it('a fork (no ingress phase) is put on the edge by the sweep under its own name, serving production’s version from its own process', async () => {
    const res = await h.api.post(`/v1/envs/${prodEnv}/fork`, { name: 'try' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const env = await waitFor(async () => {
      const e = await envOf(dep.env);
      return e.edge?.status === 'ok' && e;
    }, 30_000, 'the edge sweep to publish the fork');
    expect(env.edge!.names).toEqual(['try.shop.apps.example.test']);
    expect(env.endpoints[0]!.public).toEqual(['http://try.shop.apps.example.test']);
    expect((await httpGet(caddy.httpPort, 'try.shop.apps.example.test')).body).toMatch(/^v2 \d+/);
    expect(await resolve4('try.shop.apps.example.test')).toEqual([PUBLIC_IP]);
    // Production still answers on its own name, from its own process.
    const prod = (await httpGet(caddy.httpPort, 'shop.example.test')).body;
    expect(prod).toMatch(/^v2 \d+/);
    expect(prod).not.toBe((await httpGet(caddy.httpPort, 'try.shop.apps.example.test')).body);
  });

  it('destroying the fork removes its route and name before its services go; production keeps its own', async () => {
    const fork = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: Env) => e.name === 'try') as Env;
    const res = await h.api.req('DELETE', `/v1/envs/${fork.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(phase(dep, 'teardown').evidence).toMatchObject({
      edge: { proxy: { status: 'ok', changes: [{ key: `${fork.id}.web`, action: 'removed' }] }, dns: { status: 'ok', changes: [{ key: 'try.shop.apps.example.test', action: 'removed' }] }, left: null },
    });
    expect((await httpGet(caddy.httpPort, 'try.shop.apps.example.test')).status).toBe(404);
    expect(await resolve4('try.shop.apps.example.test')).toBe('ENOTFOUND');
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v2 \d+/);
  });

  it('stop takes the env off the edge: its hostname no longer routes or resolves, and the record is cleared', async () => {
    const env = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: Env) => e.name === 'pr-7') as Env;
    const res = await h.api.post(`/v1/envs/${env.id}/stop`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(phase(dep, 'stop').evidence).toMatchObject({
      edge: { proxy: { status: 'ok', changes: [{ key: `${env.id}.web`, action: 'removed' }] }, dns: { status: 'ok', changes: [{ key: 'pr-7.shop.apps.example.test', action: 'removed' }] }, left: null },
    });
    expect((await httpGet(caddy.httpPort, 'pr-7.shop.apps.example.test')).status).toBe(404);
    expect(await resolve4('pr-7.shop.apps.example.test')).toBe('ENOTFOUND');
    expect((await envOf(env.id)).edge).toBeNull();
    // Production is untouched.
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v2 \d+/);
  });

  it('three deploys under continuous GET and POST traffic through Caddy drop no request', async () => {
    // Four clients on keep-alive connections to Caddy, each sending GET / and POST /print back to
    // back until the deploys are done. Every answer must be a 200 from some version of the app.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const failures: string[] = [];
    const versions = new Map<string, number>();
    let sent = 0;
    let done = false;
    const request = (method: 'GET' | 'POST') =>
      new Promise<void>((resolve) => {
        const req = http.request({ host: '127.0.0.1', port: caddy.httpPort, path: method === 'GET' ? '/' : '/print?n=0', method, agent, headers: { host: 'shop.example.test' }, timeout: 10_000 }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => {
            if (res.statusCode !== 200) failures.push(`${method} ${res.statusCode} ${body.slice(0, 80)}`);
            else if (method === 'GET') versions.set(body.split(' ')[0]!, (versions.get(body.split(' ')[0]!) ?? 0) + 1);
            resolve();
          });
        });
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', (err) => (failures.push(`${method} ${err.message}`), resolve()));
        req.end(method === 'POST' ? 'x'.repeat(64) : undefined);
      });
    const clients = Array.from({ length: 4 }, async (_, i) => {
      while (!done) {
        sent++;
        await request(i % 2 === 0 ? 'GET' : 'POST');
      }
    });
    try {
      for (const version of ['z1', 'z2', 'z3']) {
        const dep = await deploy('production', version);
        expect(dep.status, dep.error ?? '').toBe('succeeded');
        expect((phase(dep, 'ingress').evidence as { proxy: { switched: unknown[] } }).proxy.switched).toHaveLength(1);
      }
    } finally {
      done = true;
      await Promise.all(clients);
      agent.destroy();
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(100);
    // Traffic reached the versions in turn, ending on the last one.
    expect([...versions.keys()]).toEqual(expect.arrayContaining(['v2', 'z1', 'z2', 'z3']));
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^z3 \d+/);
  });

  it('a relay that dies is started again by the agent, and the hostname answers again', async () => {
    const [pid] = relayPids(h.agentDir);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    const answer = await waitFor(async () => {
      const a = await httpGet(caddy.httpPort, 'shop.example.test').catch(() => null);
      return a?.status === 200 && a;
    }, 20_000, 'the hostname to answer through a new relay');
    expect(answer.body).toMatch(/^z3 \d+/);
    expect(relayPids(h.agentDir)).not.toContain(pid);
  });

  it("a route and a record removed behind denv's back are put back by the sweep's recheck", async () => {
    const pdnsApi = (method: string, path: string, body?: unknown) =>
      fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/example.test.${path}`, { method, headers: { 'x-api-key': pdns.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const aRecord = async () => ((await (await pdnsApi('GET', '')).json()) as { rrsets: { name: string; type: string }[] }).rrsets.some((r) => r.name === 'shop.example.test.' && r.type === 'A');
    expect((await adminCall(caddy, 'DELETE', `/id/denv-route-${prodEnv}.web`)).status).toBe(200);
    expect((await pdnsApi('PATCH', '', { rrsets: [{ name: 'shop.example.test.', type: 'A', changetype: 'DELETE' }] })).status).toBe(204);
    // Nothing changed on denv's side, so only the periodic recheck (2 s here, 5 min by default) finds
    // them gone; it may already have (the sweep runs every 250 ms), so what is checked is the end state.
    await waitFor(async () => (await adminCall(caddy, 'GET', `/id/denv-route-${prodEnv}.web`)).status === 200 && (await aRecord()), 30_000, 'the recheck to restore the route and the record');
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^z3 \d+/);
    expect(await resolve4('shop.example.test')).toEqual([PUBLIC_IP]);
  });

  it('a rollback moves the hostname to the restored version as it completes, and records it', async () => {
    const res = await h.api.post(`/v1/envs/${prodEnv}/rollback`, { version: 4 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    // The agent moved the relay route before stopping z3; the verdict's env.edge finds it in place.
    expect(phase(dep, 'verdict').evidence).toMatchObject({ edge: { status: 'ok', names: ['shop.example.test'], proxy: { status: 'ok', changes: [{ key: `${prodEnv}.web`, action: 'unchanged' }], switched: [] } } });
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^z2 \d+/);
    const env = await envOf(prodEnv);
    expect(env.endpoints[0]!.public).toEqual(['http://shop.example.test']);
    expect(env.edge!.status).toBe('ok');
  });

  it('a proxy outage never fails a deploy: ingress and the env say degraded, and the edge sweep converges once a proxy answers', async () => {
    await caddy.stop();
    const dep = await deploy('production', 'v3');
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(phase(dep, 'ingress')).toMatchObject({
      status: 'ok',
      evidence: { degraded: true, proxy: { provider: 'caddy', status: 'failed', error: { reason: 'unreachable', retryable: true } }, dns: { status: 'ok' } },
    });
    expect((await envOf(prodEnv)).edge).toMatchObject({ status: 'degraded', proxy: { status: 'failed', error: { reason: 'unreachable' } } });

    // A new Caddy (new ports) answers: the sweep re-applies the route without another deploy.
    caddy = await startCaddy();
    await setProxy(caddy);
    await waitFor(async () => (await envOf(prodEnv)).edge?.status === 'ok', 30_000, 'the edge sweep to converge');
    expect((await httpGet(caddy.httpPort, 'shop.example.test')).body).toMatch(/^v3 \d+/);
  });
});
