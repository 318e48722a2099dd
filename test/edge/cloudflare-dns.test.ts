/**
 * The cloudflare provider — CONTRACT-TESTED ONLY: no call reaches Cloudflare. The official SDK
 * talks to test/helpers/cloudflare-server.ts, which speaks the v4 endpoints used as Cloudflare
 * documents them; these tests assert the exact requests (paths, queries, auth header, bodies)
 * and what the provider makes of the answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CloudflareDns } from '../../src/edge/cloudflare/cloudflare-dns.js';
import { EdgeError } from '../../src/edge/edge-error.js';
import { startFakeCloudflare, type FakeCloudflare } from '../helpers/cloudflare-server.js';
import { freeLoopbackPort } from '../helpers/caddy.js';

const TOKEN = 'cf-token-4c1e0b9a77';
const ZONE_ID = '023e105f4ecef8ad9ca31a8372d0c353';
let cf: FakeCloudflare;

afterEach(async () => {
  await cf?.close();
});

const start = async (maxPerPage?: number) => {
  cf = await startFakeCloudflare({ token: TOKEN, zoneId: ZONE_ID, zoneName: 'example.test', ...(maxPerPage ? { maxPerPage } : {}) });
  return new CloudflareDns({ apiToken: TOKEN, zoneId: ZONE_ID, apiUrl: cf.apiUrl });
};
const calls = () => cf.requests.map((r) => `${r.method} ${r.path}`);
const batches = () => cf.requests.filter((r) => r.path.endsWith('/dns_records/batch')).map((r) => r.body);

describe('cloudflare provider (contract tests against a local server speaking the v4 API)', () => {
  it('readiness reads the zone with the Bearer token, at the settable base URL', async () => {
    const p = await start();
    const r = await p.readiness();
    expect(r).toMatchObject({ ready: true, provider: 'cloudflare', endpoint: `cloudflare API at ${new URL(cf.apiUrl).host}`, facts: { zone: 'example.test', status: 'active', records: 0 } });
    expect(calls()).toEqual([`GET /client/v4/zones/${ZONE_ID}`, `GET /client/v4/zones/${ZONE_ID}/dns_records?comment.exact=managed%20by%20denv&per_page=100`]);
    for (const q of cf.requests) expect(q.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('the default base URL is Cloudflare’s, whatever CLOUDFLARE_BASE_URL says (checked without calling it)', () => {
    const saved = process.env.CLOUDFLARE_BASE_URL;
    process.env.CLOUDFLARE_BASE_URL = 'http://127.0.0.1:9/elsewhere';
    try {
      const p = new CloudflareDns({ apiToken: TOKEN, zoneId: ZONE_ID });
      expect(p.endpoint).toBe('cloudflare API at api.cloudflare.com');
      expect(Reflect.get(Reflect.get(p, 'client') as object, 'baseURL')).toBe('https://api.cloudflare.com/client/v4');
    } finally {
      if (saved === undefined) delete process.env.CLOUDFLARE_BASE_URL;
      else process.env.CLOUDFLARE_BASE_URL = saved;
    }
  });

  it('upsert A and AAAA: the name’s records are listed, then one batch posts both, marked and DNS-only', async () => {
    const p = await start();
    const c = await p.upsertRecords({ name: 'App.example.test', addresses: ['192.0.2.10', '2001:DB8::1'] });
    expect(c).toEqual({ changed: true, action: 'created', touched: ['A app.example.test 192.0.2.10', 'AAAA app.example.test 2001:db8::1'] });
    expect(calls()).toEqual([
      `GET /client/v4/zones/${ZONE_ID}`,
      `GET /client/v4/zones/${ZONE_ID}/dns_records?name.exact=app.example.test&per_page=100`,
      `POST /client/v4/zones/${ZONE_ID}/dns_records/batch`,
    ]);
    expect(batches()).toEqual([
      {
        posts: [
          { name: 'app.example.test', type: 'A', content: '192.0.2.10', ttl: 60, proxied: false, comment: 'managed by denv' },
          { name: 'app.example.test', type: 'AAAA', content: '2001:db8::1', ttl: 60, proxied: false, comment: 'managed by denv' },
        ],
      },
    ]);
    expect(await p.listRecords()).toEqual([{ name: 'app.example.test', addresses: ['192.0.2.10', '2001:db8::1'] }]);
  });

  it('a re-run sends no batch; new addresses are one batch that deletes only what changed', async () => {
    const p = await start();
    await p.upsertRecords({ name: 'app.example.test', addresses: ['192.0.2.10', '2001:db8::1'] });
    expect(await p.upsertRecords({ name: 'app.example.test', addresses: ['2001:db8:0::1', '192.0.2.10'] })).toEqual({ changed: false, action: 'unchanged', touched: [] });
    expect(batches()).toHaveLength(1);
    const v6 = [...cf.records.values()].find((r) => r.type === 'AAAA')!;
    const c = await p.upsertRecords({ name: 'app.example.test', addresses: ['192.0.2.10', '192.0.2.11'] });
    expect(c.action).toBe('updated');
    expect(batches()[1]).toEqual({ deletes: [{ id: v6.id }], posts: [{ name: 'app.example.test', type: 'A', content: '192.0.2.11', ttl: 60, proxied: false, comment: 'managed by denv' }] });
    expect(await p.listRecords()).toEqual([{ name: 'app.example.test', addresses: ['192.0.2.10', '192.0.2.11'] }]);
  });

  it('records denv did not create: never listed or changed; holding a wanted name is a conflict', async () => {
    const p = await start();
    cf.addRecord({ name: 'mail.example.test', type: 'A', content: '198.51.100.7', comment: 'set by hand' });
    cf.addRecord({ name: 'www.example.test', type: 'CNAME', content: 'example.test' });
    for (const name of ['mail.example.test', 'www.example.test']) {
      const err = await p.upsertRecords({ name, addresses: ['192.0.2.1'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EdgeError);
      expect(err).toMatchObject({ reason: 'conflict', retryable: false });
    }
    expect(await p.removeRecords('mail.example.test')).toMatchObject({ action: 'absent' });
    expect(batches()).toEqual([]);
    expect(await p.listRecords()).toEqual([]);
    expect(cf.records.size).toBe(2);
  });

  it('listRecords reads every page', async () => {
    const p = await start(2);
    for (let i = 1; i <= 5; i++) cf.addRecord({ name: `n${i}.example.test`, type: 'A', content: `192.0.2.${i}`, comment: 'managed by denv', ttl: 60 });
    expect((await p.listRecords()).map((s) => s.name)).toEqual(['n1.example.test', 'n2.example.test', 'n3.example.test', 'n4.example.test', 'n5.example.test']);
    expect(calls().filter((c) => c.includes('comment.exact')).map((c) => /[?&]page=(\d+)/.exec(c)?.[1] ?? '1')).toEqual(['1', '2', '3', '4']);
  });

  it('remove deletes denv’s records of the name in one batch; a second remove is absent', async () => {
    const p = await start();
    await p.upsertRecords({ name: 'app.example.test', addresses: ['192.0.2.10', '2001:db8::1'] });
    const ids = [...cf.records.values()].map((r) => ({ id: r.id }));
    expect(await p.removeRecords('app.example.test')).toMatchObject({ changed: true, action: 'removed' });
    expect(batches().at(-1)).toEqual({ deletes: ids });
    expect(cf.records.size).toBe(0);
    expect(await p.removeRecords('app.example.test')).toEqual({ changed: false, action: 'absent', touched: [] });
  });

  it('refuses a name outside the zone (Cloudflare would append the zone to it) before writing', async () => {
    const p = await start();
    await expect(p.upsertRecords({ name: 'app.example.org', addresses: ['192.0.2.1'] })).rejects.toMatchObject({ reason: 'invalid', message: 'app.example.org is not in zone example.test (the zone configured for cloudflare)' });
    expect(batches()).toEqual([]);
  });

  it('a wrong token: not ready, unauthorized, and no token in any message', async () => {
    cf = await startFakeCloudflare({ token: TOKEN, zoneId: ZONE_ID, zoneName: 'example.test' });
    const p = new CloudflareDns({ apiToken: 'wrong-token-ab12cd', zoneId: ZONE_ID, apiUrl: cf.apiUrl });
    const r = await p.readiness();
    expect(r).toMatchObject({ ready: false, detail: `cloudflare API at ${new URL(cf.apiUrl).host}: GET zone: answered 401: Authentication error (10000)` });
    const err = (await p.upsertRecords({ name: 'a.example.test', addresses: ['192.0.2.1'] }).catch((e: unknown) => e)) as EdgeError;
    expect(err).toMatchObject({ reason: 'unauthorized', retryable: false });
    for (const text of [r.detail, err.message, String(err.stack)]) expect(text).not.toMatch(/wrong-token-ab12cd|cf-token-4c1e0b9a77/);
  });

  it('nothing listening: not ready, connection refused, retryable', async () => {
    const port = await freeLoopbackPort();
    const p = new CloudflareDns({ apiToken: TOKEN, zoneId: ZONE_ID, apiUrl: `http://127.0.0.1:${port}/client/v4` });
    expect(await p.readiness()).toMatchObject({ ready: false, detail: `cloudflare API at 127.0.0.1:${port}: GET zone: connection refused` });
    await expect(p.removeRecords('a.example.test')).rejects.toMatchObject({ reason: 'unreachable', retryable: true });
  });
});
