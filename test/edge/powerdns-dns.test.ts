/**
 * The powerdns provider against a real PowerDNS (test/helpers/pdns.ts: sqlite backend, loopback
 * only). Every record is checked with a real DNS query to that server.
 */
import { promises as dns } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeError } from '../../src/edge/edge-error.js';
import { PowerDnsProvider } from '../../src/edge/powerdns/powerdns-dns.js';
import { startPowerDns, type TestPowerDns } from '../helpers/pdns.js';

let pdns: TestPowerDns;
let provider: PowerDnsProvider;
let resolver: dns.Resolver;

async function serial(): Promise<number> {
  const res = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/example.test.`, { headers: { 'x-api-key': pdns.apiKey } });
  return ((await res.json()) as { serial: number }).serial;
}

/** The DNS error code of a query, or its answer. */
const query = (p: Promise<string[]>) => p.then((a) => a.sort(), (e: NodeJS.ErrnoException) => e.code);

beforeAll(async () => {
  pdns = await startPowerDns();
  await pdns.createZone('example.test');
  provider = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey, zone: 'example.test' });
  resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${pdns.dnsPort}`]);
});

afterAll(async () => {
  await pdns?.stop();
});

describe('powerdns provider, real PowerDNS', () => {
  it('readiness: the server’s version and the zone, nothing changed', async () => {
    const before = await serial();
    const r = await provider.readiness();
    expect(r).toMatchObject({ ready: true, provider: 'powerdns', facts: { zone: 'example.test.', records: 0 } });
    expect(r.facts.version).toMatch(/^4\./);
    expect(await serial()).toBe(before);
  });

  it('upsert A and AAAA: a DNS query to PowerDNS answers both at once', async () => {
    const c = await provider.upsertRecords({ name: 'app.example.test', addresses: ['192.0.2.10', '2001:DB8:0:0::1'] });
    expect(c).toEqual({ changed: true, action: 'created', touched: ['A app.example.test.', 'AAAA app.example.test.'] });
    expect(await query(resolver.resolve4('app.example.test'))).toEqual(['192.0.2.10']);
    expect(await query(resolver.resolve6('app.example.test'))).toEqual(['2001:db8::1']);
  });

  it('the same records again (other order and spelling) are unchanged and write nothing', async () => {
    const before = await serial();
    expect(await provider.upsertRecords({ name: 'APP.example.test.', addresses: ['2001:db8::1', '192.0.2.10', '192.0.2.10'] })).toEqual({ changed: false, action: 'unchanged', touched: [] });
    expect(await serial()).toBe(before);
  });

  it('new addresses replace the old ones in one change; a family no longer listed goes', async () => {
    const c = await provider.upsertRecords({ name: 'app.example.test', addresses: ['192.0.2.11', '192.0.2.12'] });
    expect(c).toEqual({ changed: true, action: 'updated', touched: ['A app.example.test.', 'AAAA app.example.test.'] });
    expect(await query(resolver.resolve4('app.example.test'))).toEqual(['192.0.2.11', '192.0.2.12']);
    expect(await query(resolver.resolve6('app.example.test'))).toBe('ENODATA');
  });

  it('listRecords shows only denv’s names; a name held by a record denv did not write is a conflict, left alone', async () => {
    const foreign = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/example.test.`, {
      method: 'PATCH',
      headers: { 'x-api-key': pdns.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ rrsets: [{ name: 'mail.example.test.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '198.51.100.7', disabled: false }] }] }),
    });
    expect(foreign.status).toBe(204);
    expect(await provider.listRecords()).toEqual([{ name: 'app.example.test', addresses: ['192.0.2.11', '192.0.2.12'] }]);
    const err = await provider.upsertRecords({ name: 'mail.example.test', addresses: ['192.0.2.99'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeError);
    expect(err).toMatchObject({ reason: 'conflict', retryable: false, message: 'A mail.example.test. exists and was not created by denv: remove it or choose another hostname' });
    expect(await provider.removeRecords('mail.example.test')).toMatchObject({ action: 'absent' });
    expect(await query(resolver.resolve4('mail.example.test'))).toEqual(['198.51.100.7']);
  });

  it('remove: the name no longer resolves (NXDOMAIN); a second remove is absent', async () => {
    expect(await provider.removeRecords('app.example.test')).toEqual({ changed: true, action: 'removed', touched: ['A app.example.test.'] });
    expect(await query(resolver.resolve4('app.example.test'))).toBe('ENOTFOUND');
    expect(await provider.removeRecords('app.example.test')).toEqual({ changed: false, action: 'absent', touched: [] });
    expect(await provider.listRecords()).toEqual([]);
  });

  it('refuses names outside the zone and bad addresses before writing', async () => {
    await expect(provider.upsertRecords({ name: 'app.example.org', addresses: ['192.0.2.1'] })).rejects.toMatchObject({ reason: 'invalid', message: 'app.example.org is not in zone example.test. (the zone configured for powerdns)' });
    await expect(provider.upsertRecords({ name: 'x.example.test', addresses: ['300.1.1.1'] })).rejects.toMatchObject({ reason: 'invalid' });
    await expect(provider.upsertRecords({ name: 'x.example.test', addresses: [] })).rejects.toMatchObject({ reason: 'invalid' });
  });
});

describe('powerdns provider errors', () => {
  it('a wrong API key: not ready, unauthorized, and no key in any message', async () => {
    const wrongKey = 'wrong-key-5f2d9c';
    const p = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: wrongKey, zone: 'example.test' });
    const r = await p.readiness();
    expect(r.ready).toBe(false);
    expect(r.detail).toMatch(/^powerdns API at 127\.0\.0\.1:\d+: GET \/api\/v1\/servers\/localhost answered 401/);
    const err = (await p.upsertRecords({ name: 'a.example.test', addresses: ['192.0.2.1'] }).catch((e: unknown) => e)) as EdgeError;
    expect(err).toMatchObject({ reason: 'unauthorized', retryable: false });
    for (const text of [r.detail, err.message, JSON.stringify(err), String(err.stack)]) {
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain(pdns.apiKey);
    }
  });

  it('a zone that does not exist: not ready, with the reason', async () => {
    const r = await new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey, zone: 'nothere.test' }).readiness();
    expect(r).toMatchObject({ ready: false, detail: `powerdns API at 127.0.0.1:${new URL(pdns.apiUrl).port}: zone nothere.test. does not exist (create it in PowerDNS first)` });
  });
});
