/**
 * Envs of several process services, as Compose files are written (issue 9): start order from
 * `depends_on` (a web service waits until its database is healthy), siblings found through
 * `DENV_<S>_HOST/PORT`, and a rollback to the version already serving that changes nothing.
 * Real control plane, real agent process, real service processes.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

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

  it('publishes the host port a Compose file names where the agent config allows it, and picks one otherwise', async () => {
    const free = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const cfg = freshDataDir('denv-published-');
    writeFileSync(join(cfg, 'agent.yaml'), `allow: {published_ports: [${free}]}\n`);
    const own = await startHarness({ agentConfig: join(cfg, 'agent.yaml') });
    try {
      expect((await own.api.post('/v1/projects', { name: 'pub' })).status).toBe(201);
      const svc = (port: number) => ({ command: ['node', APP], ports: [`${port}:8080`], 'x-denv': { health: { path: '/healthz' } } });
      const res = await own.api.post('/v1/projects/pub/deploy', { env: 'p', compose: { services: { fixed: svc(free), picked: svc(free === 65000 ? 65001 : 65000) } } });
      const dep = await own.api.finished(res.body.deployment.id);
      expect(dep.status, dep.error ?? '').toBe('succeeded');
      const env: Env = (await own.api.get(`/v1/envs/${dep.env}`)).body;
      expect(urlOf(env, 'fixed')).toBe(`http://127.0.0.1:${free}`);
      expect(Number(new URL(urlOf(env, 'picked')).port)).not.toBe(65000);
      // An update of the fixed-port service takes the port over (one copy at a time).
      const again = await own.api.post('/v1/projects/pub/deploy', { env: 'p', compose: { services: { fixed: { ...svc(free), environment: { VERSION: 'v2' } } } } });
      const dep2 = await own.api.finished(again.body.deployment.id);
      expect(dep2.status, dep2.error ?? '').toBe('succeeded');
      expect((await (await fetch(`http://127.0.0.1:${free}/`)).text()).split(' ')[0]).toBe('v2');
    } finally {
      await own.close();
    }
  });
});

