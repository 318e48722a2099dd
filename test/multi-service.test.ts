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
import { DEPLOY_STAGE_NAMES } from '../src/contracts/envelope.js';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

/**
 * `db` listens only after 1.5 s (it is "starting"); `web` answers GET /upstream with what it
 * fetches from `http://${DENV_DB_HOST}:${DENV_DB_PORT}/` (the fixture's UPSTREAM variable). With
 * `service_healthy`, web starts only once db answers its health check. web's VERSION names its own
 * port through its own sibling variable (docs/compose.md: a service's own port is among them).
 */
const twoServices = `
services:
  web:
    command: [node, ${APP}]
    environment:
      VERSION: "web-1-on-\${DENV_WEB_PORT}"
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
    const webUrl = urlOf(env, 'web');
    expect((await (await fetch(webUrl)).text()).split(' ')[0]).toBe(`web-1-on-${new URL(webUrl).port}`);
    // web started only after db was healthy: db's health passed before web's process started.
    const status = (await h.api.get(`/v1/envs/${dep.env}/status?refresh=true`)).body;
    const started = Object.fromEntries(status.live_status.workloads.map((w: { service: string; started_at: string }) => [w.service, Date.parse(w.started_at)]));
    expect(started.web - started.db).toBeGreaterThanOrEqual(1500);

    // Each process service ran seed 004's pipeline (DESIGN §7), stages that do not apply skipped with the reason.
    const pipelines = dep.phases.find((p) => p.name === 'prepare')!.evidence!.pipelines as Record<string, { state: string; stages: { name: string; status: string; detail?: string }[] }>;
    expect(Object.keys(pipelines).sort()).toEqual(['db', 'web']);
    const edge = "control-plane deploy: the deploy's ingress phase puts the service on the team's edge";
    for (const [service, p] of Object.entries(pipelines)) {
      expect(p.stages.map((st) => st.name), service).toEqual([...DEPLOY_STAGE_NAMES]);
      expect(p, service).toEqual({
        state: 'success',
        stages: [
          { name: 'admit', status: 'ok', detail: 'process_runtime: open: this host runs process services unsigned' },
          { name: 'verify', status: 'skipped', detail: 'process_runtime: open: nothing signed to verify' },
          { name: 'idempotency', status: 'ok', detail: 'first start of this service in this env' },
          { name: 'pull', status: 'skipped', detail: 'a process service runs a command on this host: there is no artifact to pull' },
          { name: 'env', status: 'ok', detail: `port ${new URL(urlOf(env, service)).port}` },
          { name: 'recreate', status: 'ok', detail: `pid ${status.live_status.workloads.find((w: { service: string }) => w.service === service).pid} on port ${new URL(urlOf(env, service)).port}` },
          { name: 'health', status: 'ok', detail: 'healthy (http)' },
          { name: 'proxy', status: 'skipped', detail: edge },
          { name: 'dns', status: 'skipped', detail: edge },
          { name: 'persist', status: 'ok' },
        ],
      });
    }
  });

  it('a version runs whole or not at all: one service failing health rolls back the other through its pipeline', async () => {
    const svc = (mode: string) => ({ command: ['node', APP], environment: { VERSION: 'w1', MODE: mode }, 'x-denv': { health: { path: '/healthz', timeout: '2s' } } });
    const dep = await op('/v1/projects/shop/deploy', { compose: { services: { api: svc('ok'), worker: svc('unhealthy') } }, env: 'half' });
    expect(dep.status).toBe('failed'); // the env's first version: nothing to go back to
    expect(dep.error).toMatch(/worker/);
    const pipelines = dep.phases.find((p) => p.name === 'prepare')!.evidence!.pipelines as Record<string, { state: string; stages: { name: string; status: string; detail?: string }[] }>;
    const stage = (service: string, name: string) => pipelines[service]!.stages.find((st) => st.name === name)!;
    // worker failed its own health and was rolled back; api passed health and was not kept.
    expect(pipelines.worker!.state).toBe('failure_rolled_back');
    expect(stage('worker', 'health').status).toBe('failed');
    expect(stage('worker', 'persist')).toEqual({ name: 'persist', status: 'skipped', detail: 'not run: health failed, rolled back' });
    expect(pipelines.api!.state).toBe('failure_rolled_back');
    expect(stage('api', 'health')).toMatchObject({ status: 'ok' });
    expect(stage('api', 'persist')).toEqual({ name: 'persist', status: 'failed', detail: 'not kept: worker failed' });
    // Neither process is left running: the env had no version before, so nothing serves.
    const pidOf = (service: string) => Number(/^pid (\d+) /.exec(stage(service, 'recreate').detail!)![1]);
    for (const service of ['api', 'worker']) expect(() => process.kill(pidOf(service), 0), service).toThrow();
    expect((await envOf(dep.env)).endpoints).toEqual([]);
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

