/**
 * Idempotent submissions and clear outcomes (issue 11, item 6): a deploy retried with the same
 * `Idempotency-Key` answers the first answer and starts nothing more; the key with another request
 * is refused; concurrent retries make one deployment; a deploy replaced before it ran names the
 * deployment that replaced it. Real control plane and agent.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const compose = (version: string) => ({ services: { web: { command: ['node', APP], environment: { VERSION: version }, 'x-denv': { health: { path: '/healthz' } } } } });

describe('Idempotency-Key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    expect((await h.api.post('/v1/projects', { name: 'idem' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  const post = async (key: string | null, body: unknown) => {
    const res = await fetch(`${h.cp.url}/v1/projects/idem/deploy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.cp.adminToken}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { deployment: { id: string }; error?: { code: string; message: string } } };
  };
  const deploymentsOf = async (env: string) => (await h.api.get(`/v1/deployments?env=${env}`)).body.items as { id: string }[];

  it('answers a retry with the first answer and starts one deployment', async () => {
    const body = { compose: compose('v1'), env: 'a' };
    const [first, ...retries] = await Promise.all([post('deploy-a-1', body), post('deploy-a-1', body), post('deploy-a-1', body)]);
    const all = [first!, ...retries];
    expect(all.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(new Set(all.map((r) => r.body.deployment.id)).size).toBe(1);
    expect(all.filter((r) => r.replayed === 'true')).toHaveLength(2);
    const env = (await h.api.get('/v1/envs?name=a')).body.items[0].id as string;
    await h.api.finished(first!.body.deployment.id);
    expect(await deploymentsOf(env)).toHaveLength(1);
    const later = await post('deploy-a-1', body);
    expect([later.status, later.body.deployment.id, later.replayed]).toEqual([202, first!.body.deployment.id, 'true']);
  });

  it('refuses the same key with a different request, and lets requests without a key through', async () => {
    const other = await post('deploy-a-1', { compose: compose('v2'), env: 'a' });
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({ code: 'CONFLICT', message: 'Idempotency-Key: this key was used for a different request' });
    const bad = await post('has space', { compose: compose('v2'), env: 'a' });
    expect(bad.status).toBe(400);
    const [x, y] = [await post(null, { compose: compose('v3'), env: 'b' }), await post(null, { compose: compose('v3'), env: 'b' })];
    expect(x.body.deployment.id).not.toBe(y.body.deployment.id);
  });

  it('a deploy replaced by a newer one before it ran says which one replaced it', async () => {
    expect((await h.api.post('/v1/projects', { name: 'gated', approval: 'required' })).status).toBe(201);
    const first = (await h.api.post('/v1/projects/gated/deploy', { compose: compose('v1'), env: 'g' })).body.deployment.id as string;
    const second = (await h.api.post('/v1/projects/gated/deploy', { compose: compose('v2'), env: 'g' })).body.deployment.id as string;
    const replaced = await h.api.finished(first);
    expect(replaced.status).toBe('failed');
    expect(replaced.error).toBe(`verdict: not applied: superseded by ${second}`);
  });
});

