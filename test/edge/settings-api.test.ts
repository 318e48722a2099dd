/**
 * Team edge settings through the HTTP API (`PUT /v1/edge`, `GET /v1/edge`; DESIGN §11), on both
 * stores: the round trip with every secret redacted in every answer, PUT as a merge (left out
 * keeps, null clears), closed validation that writes nothing, scope admin to write, and each team
 * seeing only its own settings. A real control plane; the stored row is read back through the
 * store module providers will read it with.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { openStore } from '../../src/control-plane/store/open-store.js';
import { readTeamEdge } from '../../src/control-plane/store/team-edge.js';
import { Api, type ApiResponse } from '../helpers/api.js';
import { freshDataDir, storeOptions, STORES } from '../helpers/stores.js';
import { twoTeams, type TwoTeams } from '../security/two-teams.js';

const PASSWORD = 'npm-pass-51d0e2';
const API_KEY = 'pdns-key-8be41f';
const API_TOKEN = 'cf-token-c93a07';
const SECRETS = [PASSWORD, API_KEY, API_TOKEN];

const CADDY = { provider: 'caddy', admin_url: 'http://127.0.0.1:2019', http_port: 8080 };
const NPMPLUS = { provider: 'npmplus', url: 'https://npm.example.com:81', email: 'admin@example.com', password: PASSWORD };
const POWERDNS = { provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: API_KEY, zone: 'example.com' };
const CLOUDFLARE = { provider: 'cloudflare', api_token: API_TOKEN, zone_id: '023e105f4ecef8ad9ca31a8372d0c353' };

describe.each(STORES)('team edge settings on %s', (store) => {
  let cp: ControlPlane | undefined;
  let opts: { dataDir: string; databaseUrl?: string };
  let url = '';
  let t: TwoTeams;
  /** Every answer any test got, to check no secret ever left the control plane. */
  const answers: string[] = [];

  const put = async (api: Api, body: unknown): Promise<ApiResponse> => {
    const res = await api.req('PUT', '/v1/edge', body);
    answers.push(JSON.stringify(res.body));
    return res;
  };
  const get = async (api: Api): Promise<ApiResponse> => {
    const res = await api.get('/v1/edge');
    answers.push(JSON.stringify(res.body));
    return res;
  };

  beforeAll(async () => {
    opts = await storeOptions(store, join(freshDataDir(), 'cp'));
    cp = await startControlPlane({ port: 0, ...opts, log: () => {} });
    url = cp.url;
    t = await twoTeams(cp.url, cp.adminToken);
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('answers null settings before any PUT', async () => {
    const res = await get(t.a);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ base_domain: null, proxy: null, dns: null, updated_at: null });
  });

  it('PUT then GET round-trips the settings with the secrets redacted in both answers', async () => {
    const res = await put(t.a, { base_domain: 'Apps.Example.com.', proxy: NPMPLUS, dns: POWERDNS });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const want = {
      base_domain: 'apps.example.com',
      proxy: { ...NPMPLUS, password: '[redacted]' },
      dns: { ...POWERDNS, api_key: '[redacted]' },
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    };
    expect(res.body).toEqual(want);
    // Fields in the order the schema declares them, whatever order the store keeps.
    expect(Object.keys(res.body.proxy)).toEqual(['provider', 'url', 'email', 'password']);
    expect(Object.keys(res.body.dns)).toEqual(['provider', 'api_url', 'api_key', 'zone']);
    const read = await get(t.a);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    // A deploy-scoped and a read-scoped token read the same, redacted.
    for (const scope of ['deploy', 'read']) {
      const token = (await t.a.post('/v1/tokens', { name: `edge-${scope}`, scope })).body.token as string;
      expect(await get(new Api(url, token))).toEqual(read);
    }
  });

  it('a partial PUT keeps what it leaves out; null clears', async () => {
    const dns = await put(t.a, { dns: CLOUDFLARE });
    expect(dns.status).toBe(200);
    expect(dns.body).toMatchObject({ base_domain: 'apps.example.com', proxy: { provider: 'npmplus', password: '[redacted]' }, dns: { ...CLOUDFLARE, api_token: '[redacted]' } });

    const proxy = await put(t.a, { proxy: CADDY });
    expect(proxy.body).toMatchObject({ base_domain: 'apps.example.com', proxy: CADDY, dns: { provider: 'cloudflare' } });

    const cleared = await put(t.a, { base_domain: null, dns: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ base_domain: null, proxy: CADDY, dns: null });
    expect((await get(t.a)).body).toEqual(cleared.body);

    const none = await put(t.a, { dns: { provider: 'none' } });
    expect(none.body).toMatchObject({ proxy: CADDY, dns: { provider: 'none' } });
    const empty = await put(t.a, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ base_domain: null, proxy: CADDY, dns: { provider: 'none' } });
  });

  it.each([
    ['an unknown field', { proxy: CADDY, colour: 'red' }, 'unknown field "colour"'],
    ["another provider's field", { proxy: { ...CADDY, password: PASSWORD } }, 'proxy: unknown field "password"'],
    ['an unknown field in dns', { dns: { ...POWERDNS, ttl: 60 } }, 'dns: unknown field "ttl"'],
    ['an unknown provider', { proxy: { provider: 'traefik', url: 'http://x' } }, 'proxy.provider:'],
    ['a missing field', { dns: { provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: API_KEY } }, 'dns.zone:'],
    ['a URL that is not http(s)', { proxy: { ...CADDY, admin_url: 'file:///etc/passwd' } }, 'proxy.admin_url: expected an http:// or https:// URL'],
    ['a URL with a password in it', { dns: { ...POWERDNS, api_url: `http://u:${API_KEY}@127.0.0.1:8081` } }, 'dns.api_url: must not carry a user or password'],
    ['a port out of range', { proxy: { ...CADDY, https_port: 70000 } }, 'proxy.https_port: expected a port between 1 and 65535'],
    ['a port given as text', { proxy: { ...CADDY, http_port: '80' } }, 'proxy.http_port:'],
    ['a bad base domain', { base_domain: 'not a domain' }, 'base_domain: expected a DNS name'],
    ['a bad zone', { dns: { ...POWERDNS, zone: '*.example.com' } }, 'dns.zone: expected a DNS name'],
    ['a secret with a space', { dns: { ...CLOUDFLARE, api_token: `${API_TOKEN} x` } }, 'dns.api_token: expected printable ASCII'],
    ['the redaction marker sent back as the secret', { proxy: { ...NPMPLUS, password: '[redacted]' } }, 'proxy.password: "[redacted]" is how answers show the stored secret'],
  ])('answers 400 naming the path for %s, and changes nothing', async (_what, body, message) => {
    const before = (await get(t.a)).body;
    const res = await put(t.a, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toContain(message);
    expect((await get(t.a)).body).toEqual(before);
  });

  it('every change is audited as edge.changed on subject edge: the fields, the token, provider kinds, never a secret', async () => {
    const events = async (api = t.a) => (await api.get('/v1/events?subject=edge&limit=1000')).body.items as { type: string; data: Record<string, unknown> }[];
    const before = (await events()).length;
    expect((await put(t.a, { dns: POWERDNS, base_domain: 'audit.example.com' })).status).toBe(200);
    expect((await put(t.a, { colour: 'red' })).status).toBe(400);
    const after = await events();
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ type: 'edge.changed', data: { fields: ['base_domain', 'dns'], base_domain: 'audit.example.com', dns: 'powerdns', token: t.aTokenId } });
    answers.push(JSON.stringify(after));
    // Team B's audit trail holds nothing of A's.
    expect((await events(t.b)).some((e) => e.data.base_domain === 'audit.example.com')).toBe(false);
  });

  it('writing needs scope admin: a deploy or read token gets 403 and changes nothing', async () => {
    const before = (await get(t.a)).body;
    for (const scope of ['deploy', 'read']) {
      const token = (await t.a.post('/v1/tokens', { name: `ci-${scope}`, scope })).body.token as string;
      const res = await put(new Api(url, token), { dns: POWERDNS });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: `this route needs a token with scope admin (this one has ${scope})` });
    }
    expect((await get(t.a)).body).toEqual(before);
  });

  it("each team sees and changes only its own settings", async () => {
    await put(t.a, { base_domain: 'alpha.example.com', proxy: NPMPLUS, dns: POWERDNS });
    const a = (await get(t.a)).body;
    expect((await get(t.b)).body).toEqual({ base_domain: null, proxy: null, dns: null, updated_at: null });

    const b = await put(t.b, { base_domain: 'bravo.example.net', dns: CLOUDFLARE });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ base_domain: 'bravo.example.net', proxy: null, dns: { provider: 'cloudflare' } });
    expect((await put(t.b, { proxy: null })).body.proxy).toBeNull();
    expect((await get(t.a)).body).toEqual(a);
    expect(JSON.stringify((await get(t.b)).body)).not.toContain('alpha');
  });

  it('no answer ever carried a secret', () => {
    expect(answers.length).toBeGreaterThan(30);
    for (const secret of SECRETS) expect(answers.filter((a) => a.includes(secret))).toEqual([]);
  });

  it('is in /openapi.json: PUT with its closed body, GET', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(doc.paths['/v1/edge']!).sort()).toEqual(['get', 'put']);
    const schema = doc.paths['/v1/edge']!.put.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(['base_domain', 'dns', 'proxy']);
  });

  it("a project's own base domain: PATCH /v1/projects/{p} sets and clears it, closed and validated, admin only, per team, audited", async () => {
    const created = await t.a.post('/v1/projects', { name: 'shop', base_domain: 'Shop.Example.NET' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.base_domain).toBe('shop.example.net');
    const read = async () => (await t.a.get('/v1/projects/shop')).body.base_domain;
    // Refused, nothing changed: an unknown field, a bad name, a read or deploy token, another team's token, an unknown project.
    for (const body of [{ colour: 'red' }, { base_domain: 'not a domain' }, { base_domain: 'a..b' }]) {
      const res = await t.a.req('PATCH', '/v1/projects/shop', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    for (const scope of ['deploy', 'read']) {
      const token = (await t.a.post('/v1/tokens', { name: `p-${scope}`, scope })).body.token as string;
      expect((await new Api(url, token).req('PATCH', '/v1/projects/shop', { base_domain: 'x.example.net' })).status).toBe(403);
    }
    expect((await t.b.req('PATCH', '/v1/projects/shop', { base_domain: 'x.example.net' })).status).toBe(404);
    expect((await t.a.req('PATCH', '/v1/projects/nope', { base_domain: 'x.example.net' })).status).toBe(404);
    expect(await read()).toBe('shop.example.net');
    // A field left out keeps its value; null clears it (the team's applies again).
    expect((await t.a.req('PATCH', '/v1/projects/shop', {})).body.base_domain).toBe('shop.example.net');
    const changed = await t.a.req('PATCH', '/v1/projects/shop', { base_domain: 'previews.example.net' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'shop', base_domain: 'previews.example.net' });
    expect((await t.a.req('PATCH', '/v1/projects/shop', { base_domain: null })).body.base_domain).toBeNull();
    expect(await read()).toBeNull();
    const events = (await t.a.get(`/v1/events?subject=project:${created.body.id}&limit=100`)).body.items as { type: string; data: Record<string, unknown> }[];
    expect(events.map((e) => [e.type, e.data.fields, e.data.base_domain])).toEqual([
      ['project.changed', [], 'shop.example.net'],
      ['project.changed', ['base_domain'], 'previews.example.net'],
      ['project.changed', ['base_domain'], null],
    ]);
  });

  it('stores the secrets themselves, where providers will read them (the control plane stopped)', async () => {
    const team = (await t.a.get('/v1/tokens')).body.items.find((x: { id: string }) => x.id === t.aTokenId).team as string;
    await cp!.close();
    cp = undefined;
    const opened = await openStore({ ...opts, log: () => {} });
    try {
      expect(await readTeamEdge(opened.db, team)).toMatchObject({ base_domain: 'alpha.example.com', proxy: NPMPLUS, dns: POWERDNS });
    } finally {
      await opened.close();
    }
  });
});
