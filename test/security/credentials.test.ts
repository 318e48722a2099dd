/**
 * Issue 10, items 7 and 8 (API side): enrollment keys are single-use by default, listed without
 * their secrets and revocable; API tokens are listed, revoked (401 from the next request), expire,
 * and carry a scope so that a CI (`deploy`) token deploys but mints neither tokens nor keys.
 * A real control plane and real agent hellos over `/agent/ws`.
 */
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { PROTOCOL_VERSION } from '../../src/contracts/protocol.js';
import { Api, waitFor } from '../helpers/api.js';
import { spawnDenv } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const FACTS = { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' };

/** One hello with `key` over a real socket: the control plane's answer. */
async function enroll(cp: ControlPlane, key: string, name: string): Promise<{ type: string; code?: string; message?: string; host_id?: string }> {
  const ws = new WebSocket(`${cp.url.replace('http', 'ws')}/agent/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answer = new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name, enrollment_key: key, facts: FACTS }));
  const out = await answer;
  ws.close();
  return out;
}

describe('credentials', () => {
  let cp: ControlPlane;
  let admin: Api;
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), log: () => {} });
    admin = new Api(cp.url, cp.adminToken);
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('enrollment keys are single-use by default, listed without the key, and revocable', async () => {
    const one = await admin.post('/v1/enrollment-keys', { name: 'rack-1' });
    expect(one.status).toBe(201);
    expect(one.body.single_use).toBe(true);
    expect((await enroll(cp, one.body.key, 'h1')).type).toBe('welcome');
    expect(await enroll(cp, one.body.key, 'h2')).toMatchObject({ type: 'refused', code: 'UNAUTHORIZED', message: expect.stringMatching(/already used/) });

    const many = await admin.post('/v1/enrollment-keys', { single_use: false });
    expect((await enroll(cp, many.body.key, 'h3')).type).toBe('welcome');
    const del = await admin.req('DELETE', `/v1/enrollment-keys/${many.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body.state).toBe('revoked');
    expect(await enroll(cp, many.body.key, 'h4')).toMatchObject({ type: 'refused', message: expect.stringMatching(/revoked/) });

    const list = await admin.get('/v1/enrollment-keys');
    expect(list.status).toBe(200);
    const byId = new Map(list.body.items.map((k: { id: string }) => [k.id, k]));
    expect(byId.get(one.body.id)).toMatchObject({ name: 'rack-1', single_use: true, state: 'used' });
    expect(byId.get(many.body.id)).toMatchObject({ single_use: false, state: 'revoked' });
    expect(JSON.stringify(list.body)).not.toContain(one.body.key);
    expect(JSON.stringify(list.body)).not.toContain(many.body.key);
    const hosts = (await admin.get('/v1/hosts')).body.items.map((h: { name: string }) => h.name);
    expect(hosts.sort()).toEqual(['h1', 'h3']);
  });

  it('lists tokens without secrets and revokes one: 401 from its very next request', async () => {
    const made = await admin.post('/v1/tokens', { name: 'ci-old' });
    expect(made.status).toBe(201);
    const t = new Api(cp.url, made.body.token);
    expect((await t.get('/v1/projects')).status).toBe(200);
    const list = await admin.get('/v1/tokens');
    expect(list.body.items.find((x: { id: string }) => x.id === made.body.id)).toMatchObject({ name: 'ci-old', scope: 'admin', revoked_at: null });
    expect(JSON.stringify(list.body)).not.toContain(made.body.token);
    expect(JSON.stringify(list.body)).not.toMatch(/"hash"/);
    const revoked = await admin.req('DELETE', `/v1/tokens/${made.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const after = await t.get('/v1/projects');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
  });

  it('a token with a ttl stops working when it expires', async () => {
    const made = await admin.post('/v1/tokens', { name: 'short', ttl: 1 });
    expect(made.status).toBe(201);
    expect(Date.parse(made.body.expires_at) - Date.now()).toBeLessThanOrEqual(1500);
    const t = new Api(cp.url, made.body.token);
    await waitFor(async () => (await t.get('/v1/projects')).status === 401, 5000, 'the token to expire');
    expect((await admin.post('/v1/tokens', { name: 'past', expires_at: '2020-01-01T00:00:00Z' })).status).toBe(400);
    expect((await admin.post('/v1/tokens', { name: 'both', ttl: 5, expires_at: '2099-01-01T00:00:00Z' })).status).toBe(400);
  });

  it('a deploy-scoped token deploys but cannot mint tokens or enrollment keys, nor escalate', async () => {
    const made = await admin.post('/v1/tokens', { name: 'ci', scope: 'deploy' });
    expect(made.body.scope).toBe('deploy');
    const ci = new Api(cp.url, made.body.token);
    expect((await ci.post('/v1/projects', { name: 'ci-app' })).status).toBe(201);
    const dep = await ci.post('/v1/projects/ci-app/deploy', { compose: { services: { web: { command: ['sleep', '5'] } } } });
    expect(dep.status).toBe(202);
    for (const [method, path, body] of [
      ['POST', '/v1/tokens', { name: 'more' }],
      ['POST', '/v1/tokens', { name: 'more', scope: 'deploy' }],
      ['GET', '/v1/tokens', undefined],
      ['POST', '/v1/enrollment-keys', {}],
      ['GET', '/v1/enrollment-keys', undefined],
      ['DELETE', `/v1/tokens/${made.body.id}`, undefined],
    ] as const) {
      const res = await ci.req(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.message).toMatch(/scope admin/);
    }
    const read = new Api(cp.url, (await admin.post('/v1/tokens', { name: 'dash', scope: 'read' })).body.token);
    expect((await read.get('/v1/envs')).status).toBe(200);
    expect((await read.post('/v1/projects', { name: 'nope' })).status).toBe(403);
    expect((await read.post('/v1/projects/ci-app/deploy', { compose: { services: { web: { command: ['true'] } } } })).status).toBe(403);
  });

  it('denv tokens create, ls and revoke', async () => {
    const denv = async (...args: string[]) => {
      const child = spawnDenv([...args, '--url', cp.url], { DENV_TOKEN: cp.adminToken });
      const code = await new Promise<number | null>((resolve) => child.proc.once('exit', resolve));
      return { code, out: child.output() };
    };
    const created = await denv('tokens', 'create', 'ci-cli', '--scope', 'deploy', '--ttl', '3600', '--json');
    expect(created.code, created.out).toBe(0);
    const token = JSON.parse(created.out) as { id: string; token: string; scope: string; expires_at: string };
    expect(token.scope).toBe('deploy');
    expect(Date.parse(token.expires_at)).toBeGreaterThan(Date.now());
    const ls = await denv('tokens', 'ls');
    expect(ls.code, ls.out).toBe(0);
    expect(ls.out).toMatch(new RegExp(`${token.id}\\s+ci-cli\\s+deploy\\s+active`));
    expect(ls.out).not.toContain(token.token);
    const revoked = await denv('tokens', 'revoke', token.id);
    expect(revoked.code, revoked.out).toBe(0);
    expect((await new Api(cp.url, token.token).get('/v1/projects')).status).toBe(401);
    expect((await denv('tokens', 'ls')).out).toMatch(new RegExp(`${token.id}\\s+ci-cli\\s+deploy\\s+revoked`));
  });

  it('denv enrollment-key create, ls and revoke', async () => {
    const denv = async (...args: string[]) => {
      const child = spawnDenv([...args, '--url', cp.url], { DENV_TOKEN: cp.adminToken });
      const code = await new Promise<number | null>((resolve) => child.proc.once('exit', resolve));
      return { code, out: child.output() };
    };
    const plain = await denv('enrollment-key');
    expect(plain.code, plain.out).toBe(0);
    expect(plain.out).toMatch(/^denr_\S+\n.*single use/);
    expect(plain.out).toContain('DENV_ENROLLMENT_KEY=');
    const created = await denv('enrollment-key', 'create', '--name', 'rack-9', '--reusable', '--json');
    expect(created.code, created.out).toBe(0);
    const key = JSON.parse(created.out) as { id: string; key: string; single_use: boolean };
    expect(key.single_use).toBe(false);
    const ls = await denv('enrollment-key', 'ls');
    expect(ls.code, ls.out).toBe(0);
    expect(ls.out).toMatch(new RegExp(`${key.id}\\s+rack-9\\s+reusable\\s+usable`));
    expect(ls.out).not.toContain(key.key);
    const revoked = await denv('enrollment-key', 'revoke', key.id);
    expect(revoked.code, revoked.out).toBe(0);
    expect(revoked.out).toContain(`revoked ${key.id} (rack-9)`);
    expect(await enroll(cp, key.key, 'h-cli')).toMatchObject({ type: 'refused', message: expect.stringMatching(/revoked/) });
    const json = JSON.parse((await denv('enrollment-key', 'ls', '--json')).out) as { items: { id: string; state: string }[] };
    expect(json.items.find((k) => k.id === key.id)?.state).toBe('revoked');
  });
});
