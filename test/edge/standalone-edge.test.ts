/**
 * Seed 004's `proxy` and `dns` stages and the preflight's readiness checks, for standalone deploys
 * (`POST /deploy` from CI): a real agent process on a real Docker Engine and registry, with
 * Debian's Caddy and PowerDNS started by the test on loopback, configured in agent.yaml
 * (`edge: {proxy, dns, tls: off}`, `public_ip`, `proxy_bind`). The envelope's signed
 * `edge.hostnames` are routed and published after health; a second version switches the relay
 * with no Caddy write; an outage is `success_degraded` with the container left serving, the
 * preflight says the provider is not ready while changing nothing, and once Caddy is back the next
 * deploy of the same content converges.
 *
 * Needs the engine and the registry (`.ci/docker-up`), caddy and pdns-server; fails without them.
 */
import dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestImages, type TestImage, type TestImages } from '../helpers/docker-images.js';
import { post, startDockerAgent, type DockerAgent } from '../helpers/docker-agent.js';
import { httpGet, startCaddy, type TestCaddy } from '../helpers/caddy.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from '../helpers/envelopes.js';
import { startPowerDns, type TestPowerDns } from '../helpers/pdns.js';

const HOST = 'edge-host';
const NAME = 'ci.example.test';
const PUBLIC_IP = '192.0.2.20';

let images: TestImages;
let agent: DockerAgent;
let trusted: TestKey;
let caddy: TestCaddy;
let pdns: TestPowerDns;
let resolver: dns.promises.Resolver;

type Answer = { state: string; stages: { name: string; status: string; detail?: string; evidence?: any }[]; endpoint?: string };
const stage = (a: Answer, name: string) => a.stages.find((s) => s.name === name)!;
const envelope = (image: TestImage) =>
  envelopeOf(payloadOf({ service: 'web', repository: image.repository, digest: image.digest, host: HOST, health: { path: '/healthz', timeout: '5s' }, edge: { hostnames: [NAME] } }), trusted);

beforeAll(async () => {
  [images, caddy, pdns] = await Promise.all([buildTestImages(), startCaddy(), startPowerDns()]);
  await pdns.createZone('example.test');
  resolver = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${pdns.dnsPort}`]);
  trusted = testKey();
  agent = await startDockerAgent(
    {
      name: HOST,
      trusted_keys: ['ci.pub'],
      allow: { repositories: ['127.0.0.1:5000/denv-test'], services: ['web'] },
      network: 'host',
      public_ip: PUBLIC_IP,
      proxy_bind: '127.0.0.1',
      edge: {
        tls: 'off',
        proxy: { provider: 'caddy', admin_url: caddy.adminUrl, http_port: caddy.httpPort, https_port: caddy.httpsPort },
        dns: { provider: 'powerdns', api_url: pdns.apiUrl, api_key: pdns.apiKey, zone: 'example.test' },
      },
    },
    { files: { 'ci.pub': trusted.publicPem } },
  );
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await Promise.all([caddy?.stop(), pdns?.stop()]);
});

describe('standalone deploys on the edge (seed 004 proxy, dns, preflight)', () => {
  it('preflight checks that Caddy and PowerDNS are ready, and changes nothing on them', async () => {
    const config = async () => (await fetch(`${caddy.adminUrl}/config/`)).text();
    const before = await config();
    const res = await post(agent.url, '/preflight', envelope(images.v1));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.state).toBe('preflight_ok');
    expect(stage(res.body, 'proxy')).toMatchObject({ status: 'ok', evidence: { provider: 'caddy', hostnames: [NAME] } });
    expect(stage(res.body, 'dns')).toMatchObject({ status: 'ok', evidence: { provider: 'powerdns', facts: { zone: 'example.test.' } } });
    expect(await config()).toBe(before);
    expect(await resolver.resolve4(NAME).catch((e: NodeJS.ErrnoException) => e.code)).toBe('ENOTFOUND');
  });

  it('a deploy routes and publishes the envelope’s hostnames after health', async () => {
    const res = await post(agent.url, '/deploy', envelope(images.v1));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.state).toBe('success');
    expect(stage(res.body, 'proxy')).toMatchObject({ status: 'ok', evidence: { provider: 'caddy', route: 'standalone.web', action: 'created', switched: null } });
    expect(stage(res.body, 'dns')).toMatchObject({ status: 'ok', evidence: { addresses: [PUBLIC_IP], changes: [{ key: NAME, action: 'created' }] } });
    expect((await httpGet(caddy.httpPort, NAME)).body).toBe('v1');
    expect(await resolver.resolve4(NAME)).toEqual([PUBLIC_IP]);
  });

  it('a new version switches the relay, with the Caddy route unchanged', async () => {
    const res = await post(agent.url, '/deploy', envelope(images.v2));
    expect(res.body.state, JSON.stringify(res.body)).toBe('success');
    expect(stage(res.body, 'proxy').evidence).toMatchObject({ action: 'unchanged' });
    expect((await httpGet(caddy.httpPort, NAME)).body).toBe('v2');
  });

  it('with Caddy down: preflight says not ready; a deploy is success_degraded and the container serves', async () => {
    await caddy.stop();
    const pre = await post(agent.url, '/preflight', envelope(images.v1));
    expect(pre.body.state).toBe('failure');
    expect(stage(pre.body, 'proxy')).toMatchObject({ status: 'failed', detail: expect.stringContaining('connection refused') });
    const res = await post(agent.url, '/deploy', envelope(images.v1));
    expect(res.body.state, JSON.stringify(res.body)).toBe('success_degraded');
    expect(stage(res.body, 'proxy')).toMatchObject({ status: 'failed', evidence: { reason: 'unreachable', retryable: true } });
    expect(stage(res.body, 'dns').status).toBe('ok');
    expect(await (await fetch(res.body.endpoint)).text()).toBe('v1');
  });

  it('once Caddy is back, the next deploy of the same content converges the degraded edge', async () => {
    caddy = await startCaddy(caddy); // same ports, empty config: the route is gone
    expect((await httpGet(caddy.httpPort, NAME).catch(() => null))?.status).not.toBe(200);
    const res = await post(agent.url, '/deploy', envelope(images.v1));
    expect(res.body.state, JSON.stringify(res.body)).toBe('success');
    expect(stage(res.body, 'idempotency').detail).toBe('same digest and env, but the edge was degraded: converging');
    expect(stage(res.body, 'proxy')).toMatchObject({ status: 'ok', evidence: { action: 'created' } });
    expect((await httpGet(caddy.httpPort, NAME)).body).toBe('v1');
  });
});
