/**
 * Issue 10, items 5 and 10 (control-plane part), against a real control plane over real HTTP:
 * the token is checked before a body is read (a 4 MB nested body without a token costs nothing),
 * routes that take no Compose have a small body limit, and bad input is a 400 naming the path —
 * never a 500: ports, name lengths, env keys, NUL anywhere, a forged paging cursor, 500k-deep JSON.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api } from '../helpers/api.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

/** Raw request: body as given, status and parsed error. */
async function raw(url: string, init: { method?: string; token?: string; body?: string }): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: Date.now() - started };
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('HTTP input before and after authentication', () => {
  let cp: ControlPlane;
  let api: Api;
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'input' })).status).toBe(201);
  });
  afterAll(async () => {
    await cp?.close();
  });

  it('answers 401 to a 4 MB nested body without a token, before parsing it', async () => {
    const body = `{"compose":{"services":{"web":{"environment":{"A":${deep(1_000_000)}}}}}}`.slice(0, 4 * 1024 * 1024 - 1024);
    for (const token of [undefined, 'denv_not-a-token']) {
      const res = await raw(`${cp.url}/v1/projects/input/deploy`, { token, body });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    const health = await raw(`${cp.url}/healthz`, { method: 'GET' });
    expect(health.status).toBe(200);
    // The order is observable: a body that does not parse, or is over the route's limit, still
    // gets 401 (the token was checked first), never 400 or 413.
    expect((await raw(`${cp.url}/v1/projects/input/deploy`, { body: '{"compose": [[[' })).status).toBe(401);
    expect((await raw(`${cp.url}/v1/tokens`, { body: JSON.stringify({ name: 'x'.repeat(100 * 1024) }) })).status).toBe(401);
  });

  it('limits bodies to 64 KiB where no Compose is taken, and keeps 4 MiB where it is', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(70 * 1024) });
    const res = await raw(`${cp.url}/v1/tokens`, { token: cp.adminToken, body: big });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // a 100 KiB Compose is still accepted by deploy's limit (it fails later, on its content: no host)
    const compose = { services: { web: { command: ['true'], environment: { PAD: 'y'.repeat(100 * 1024) } } } };
    const dep = await raw(`${cp.url}/v1/projects/input/deploy`, { token: cp.adminToken, body: JSON.stringify({ compose }) });
    expect(dep.status).not.toBe(413);
  });

  it('refuses 500k-deep JSON with 400, quickly', async () => {
    const res = await raw(`${cp.url}/v1/projects/input/deploy`, { token: cp.adminToken, body: `{"compose":${deep(500_000)}}` });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/nested deeper than 64/);
  });

  it('refuses NUL in a body string, a key or the URL with 400 naming where', async () => {
    const inValue = await raw(`${cp.url}/v1/projects`, { token: cp.adminToken, body: JSON.stringify({ name: 'a\u0000b' }) });
    expect(inValue.status).toBe(400);
    expect(inValue.body.error.message).toMatch(/^body\.name: NUL/);
    const inCompose = await raw(`${cp.url}/v1/projects/input/deploy`, { token: cp.adminToken, body: JSON.stringify({ compose: { services: { web: { command: ['x'], environment: { K: 'v\u0000' } } } } }) });
    expect(inCompose.status).toBe(400);
    expect(inCompose.body.error.message).toMatch(/^body\.compose\.services\.web\.environment\.K: NUL/);
    const inKey = await raw(`${cp.url}/v1/projects`, { token: cp.adminToken, body: '{"na\\u0000me":"x"}' });
    expect(inKey.status).toBe(400);
    const inUrl = await api.get('/v1/envs/env_%00x');
    expect(inUrl.status).toBe(400);
    const inQuery = await api.get('/v1/events?subject=env:%00');
    expect(inQuery.status).toBe(400);
  });

  it('refuses malformed JSON without echoing any of it (it may hold a secret)', async () => {
    for (const body of ['{"api_key": hunter2secret}', '{"api_key":"hunter2secret" x}', '{"api_key":"hunter2secret']) {
      const res = await raw(`${cp.url}/v1/projects`, { token: cp.adminToken, body });
      expect(res.status, body).toBe(400);
      expect(res.body.error.message).toMatch(/^body: not valid JSON( \(at position \d+\))?$/);
      expect(JSON.stringify(res.body)).not.toContain('hunter2');
    }
  });

  it('refuses a paging cursor it did not make with 400', async () => {
    for (const after of [
      'garbage',
      Buffer.from(JSON.stringify(['not a time', 'prj_x'])).toString('base64url'),
      Buffer.from(JSON.stringify(['99999-01-01T00:00:00.000Z', 'prj_x'])).toString('base64url'),
      Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', "x' or 1=1"])).toString('base64url'),
    ]) {
      const res = await api.get(`/v1/projects?after=${after}`);
      expect(res.status, after).toBe(400);
      expect(res.body.error.message).toMatch(/^after: /);
    }
  });

  it.each([
    ['port 0', { image: 'busybox', ports: [0] }, 'ports.0'],
    ['a negative port', { image: 'busybox', ports: [-1] }, 'ports.0'],
    ['port 65536', { image: 'busybox', ports: [65536] }, 'ports.0'],
    ['an env key with =', { image: 'busybox', env: { 'A=B': 'x' } }, 'env'],
    ['an image name of 1000 characters', { image: 'i'.repeat(1000) }, 'image'],
  ])('refuses a sandbox with %s (400 naming the path)', async (_what, body, path) => {
    const res = await api.post('/v1/sandboxes', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(path);
  });

  it('refuses a Compose environment key that is not a variable name', async () => {
    const res = await api.post('/v1/projects/input/deploy', { compose: { services: { web: { command: ['true'], environment: { 'A=B': 'x' } } } } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('services.web.environment');
  });

  it.each([
    ['a project name of 64 characters', '/v1/projects', { name: 'a'.repeat(64) }],
    ['a token name of 101 characters', '/v1/tokens', { name: 't'.repeat(101) }],
    ['a branch of 300 characters', '/v1/projects', { name: 'b', branch: 'b'.repeat(300) }],
  ])('refuses %s', async (_what, path, body) => {
    expect((await api.post(path, body)).status).toBe(400);
  });
});
