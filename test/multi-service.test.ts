/**
 * Envs of several process services, as Compose files are written (issue 9): start order from
 * `depends_on` (a web service waits until its database is healthy), siblings found through
 * `DENV_<S>_HOST/PORT`, and a rollback to the version already serving that changes nothing.
 * Real control plane, real agent process, real service processes.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

/**
 * `db` listens only after 1.5 s (it is "starting"); `web` answers GET /upstream with what it
 * fetches from `http://${DENV_DB_HOST}:${DENV_DB_PORT}/` (the fixture's UPSTREAM variable). With
 * `service_healthy`, web starts only once db answers its health check.
 */
const twoServices = `
services:
  web:
    command: [node, ${APP}]
    environment:
      VERSION: web-1
      UPSTREAM: "http://\${DENV_DB_HOST}:\${DENV_DB_PORT}/"
    depends_on:
      db: {condition: service_healthy}
    x-denv: {health: {path: /healthz}}
  db:
    command: [node, ${APP}]
    container_name: shop-db
    labels: {tier: data}
    environment: {VERSION: db-1, STARTUP_DELAY_MS: "1500"}
    x-denv: {health: {path: /healthz, timeout: 10s}}
`;

describe('multi-service envs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    expect((await h.api.post('/v1/projects', { name: 'shop' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function op(path: string, body: unknown = {}): Promise<Deployment> {
    const res = await h.api.post(path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return h.api.finished(res.body.deployment.id);
  }
  const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
  const urlOf = (env: Env, service: string) => env.endpoints.find((e) => e.service === service)!.url;

  it('starts web after its database is healthy, and web finds it through its sibling variables', async () => {
    const dep = await op('/v1/projects/shop/deploy', { compose: twoServices, env: 'two' });
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    // Cosmetic fields are accepted and said to be without effect.
    expect(dep.phases[0]!.evidence).toMatchObject({ ignored: ['services.db.container_name', 'services.db.labels'] });
    const env = await envOf(dep.env);
    const dbUrl = urlOf(env, 'db');
    const [dbVersion, dbPid] = (await (await fetch(dbUrl)).text()).split(' ');
    expect(dbVersion).toBe('db-1');
    // web reached db at the address its variables named: db's own answer comes back through it.
    const through = await (await fetch(`${urlOf(env, 'web')}/upstream`)).text();
    expect(through).toBe(`db-1 ${dbPid}`);
    // web started only after db was healthy: db's health passed before web's process started.
    const status = (await h.api.get(`/v1/envs/${dep.env}/status?refresh=true`)).body;
    const started = Object.fromEntries(status.live_status.workloads.map((w: { service: string; started_at: string }) => [w.service, Date.parse(w.started_at)]));
    expect(started.web - started.db).toBeGreaterThanOrEqual(1500);
  });

  it('a failed deploy after a snapshot rolls back to the serving version without touching it', async () => {
    const compose = { services: { web: { command: ['node', APP], environment: { VERSION: 'v1' }, 'x-denv': { health: { path: '/healthz' } } } } };
    const first = await op('/v1/projects/shop/deploy', { compose, env: 'steady' });
    expect(first.status).toBe('succeeded');
    const before = await envOf(first.env);
    const answer = await (await fetch(urlOf(before, 'web'))).text();
    // The snapshot makes a new version with the same spec; the process keeps serving.
    const snap = await op(`/v1/envs/${first.env}/snapshot`);
    expect(snap.status).toBe('succeeded');
    const broken = { services: { web: { command: ['node', APP], environment: { VERSION: 'v3', MODE: 'crash' }, 'x-denv': { health: { path: '/healthz' } } } } };
    const failed = await op('/v1/projects/shop/deploy', { compose: broken, env: 'steady' });
    expect(failed.status).toBe('rolled_back');
    const after = await envOf(first.env);
    // Same endpoint, same process: nothing was restarted.
    expect(after.endpoints).toEqual(before.endpoints);
    expect(await (await fetch(urlOf(after, 'web'))).text()).toBe(answer);
    const status = (await h.api.get(`/v1/envs/${first.env}/status?refresh=true`)).body;
    expect(status.live_status.workloads.map((w: { pid: number; ready: number }) => [w.pid, w.ready])).toEqual([[Number(answer.split(' ')[1]), 1]]);
  });
});
