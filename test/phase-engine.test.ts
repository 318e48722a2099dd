/**
 * The phase engine and the verdicts, with the host scripted (helpers/fake-agent.ts: the real
 * protocol, answers chosen by each test) and everything else real: API, planner, engine, gateway,
 * store. What each deployment asks of its host is asserted exactly, and so is what it records:
 * phases, evidence, errors, the env's current version and endpoints, the events.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.js';
import { Api } from './helpers/api.js';
import { connectFakeAgent, healthy, HOLD, notHealthy, type FakeAgent, type ReceivedCommand } from './helpers/fake-agent.js';
import { freshDataDir, storeOptions } from './helpers/stores.js';

const compose = (version: string, extra: Record<string, unknown> = {}) => ({
  services: { web: { command: ['node', 'app.js'], environment: { VERSION: version }, 'x-denv': { health: { path: '/healthz' } } } },
  ...extra,
});

/** The port each env.create / env.rollback was answered with, by command id: which answer the env's endpoints came from. */
const answeredPorts = new Map<string, number>();
let nextPort = 21000;
const portFor = (c: ReceivedCommand) => {
  nextPort += 10;
  answeredPorts.set(c.id, nextPort);
  return nextPort;
};
const healthyPort = (c: ReceivedCommand): number => answeredPorts.get(c.id)!;

/** The answers of a host where everything works: each env.create / env.rollback on its own port. */
function working(): (c: ReceivedCommand) => unknown {
  return (c) => {
    switch (c.kind) {
      case 'env.create':
        return healthy(c.payload, portFor(c));
      case 'env.rollback':
        return { ...healthy(c.payload, portFor(c)), restored: c.payload.restore_data ? c.payload.snapshot : null };
      case 'env.snapshot':
        return { snapshot: c.payload.name, datasets: c.payload.volumes, frozen_for: 3, consistent: true };
      case 'env.stop':
        return { stopped: 1, ports: 1 };
      case 'env.destroy':
        return { removed: { processes: 1, datasets: 0, snapshots: 1, ports: 1 } };
      case 'env.release':
        return { released: true, left_running: [4242] };
      case 'env.exec':
        return { exit: 0, stdout: '', stderr: '', timed_out: false };
      default:
        throw new Error(`unexpected ${c.kind}`);
    }
  };
}

const PHASES = ['resolve', 'place', 'provision', 'join', 'prepare', 'start', 'health', 'warm', 'snapshot', 'ingress', 'verdict'];

describe('phase engine with a scripted host', () => {
  let cp: ControlPlane;
  let api: Api;
  let agent: FakeAgent;

  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), heartbeatMs: 500, agentWaitMs: 3000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    agent = await connectFakeAgent(cp.url, await cp.createEnrollmentKey(), working());
    expect((await api.post('/v1/projects', { name: 'app' })).status).toBe(201);
  });
  afterAll(async () => {
    await agent?.close();
    await cp?.close();
  });

  /** Deploy `body` to env `env` and wait for its end; the commands the host got for it. The
   *  snapshot-retention sweep's `env.prune_snapshots` is not the deployment's: that sweep runs once
   *  the deployment has ended and may reach the host before this reads what it got (seen under load). */
  async function deploy(env: string, body: Record<string, unknown>): Promise<{ dep: Deployment; commands: ReceivedCommand[] }> {
    const before = agent.received.length;
    const res = await api.post('/v1/projects/app/deploy', { env, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await api.finished(res.body.deployment.id);
    return { dep, commands: agent.received.slice(before).filter((c) => c.payload.env === dep.env && c.kind !== 'env.prune_snapshots') };
  }
  const envOf = async (id: string): Promise<Env> => (await api.get(`/v1/envs/${id}`)).body;
  const phase = (dep: Deployment, name: string) => dep.phases.find((p) => p.name === name)!;
  const events = async (subject: string) => (await api.get(`/v1/events?subject=${subject}&limit=1000`)).body.items as { type: string; data: Record<string, unknown> }[];

  it('a deploy runs its phases in order, asks the host for exactly env.create, env.snapshot and env.rollback, and makes the version current', async () => {
    const posted = Date.now();
    const { dep, commands } = await deploy('production', { compose: compose('v1') });
    const wallMs = Date.now() - posted;
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(dep.error).toBeNull();
    expect(dep.phases.map((p) => [p.name, p.status])).toEqual(PHASES.map((n) => [n, ['provision', 'join', 'warm', 'ingress'].includes(n) ? 'skipped' : 'ok']));
    for (const p of dep.phases) expect(Date.parse(p.finished_at!) >= Date.parse(p.started_at ?? p.finished_at!), p.name).toBe(true);
    const version = phase(dep, 'resolve').evidence!.version as string;
    expect(phase(dep, 'resolve').evidence).toMatchObject({ number: 1, services: ['web'], volumes: [], previous: null });
    expect(phase(dep, 'place').evidence).toEqual({ host: agent.hostId, reason: 'first connected host in team' });
    expect(commands.map((c) => c.kind)).toEqual(['env.create', 'env.snapshot', 'env.rollback']);
    const [create, snap, activate] = commands as [ReceivedCommand, ReceivedCommand, ReceivedCommand];
    expect(create.payload).toMatchObject({ env: dep.env, version, volumes: [], retire_others: false, project: 'app', env_name: 'production' });
    expect(create.payload.services.web.environment).toEqual({ VERSION: 'v1' });
    expect(snap.payload).toEqual({ env: dep.env, name: version, volumes: [] });
    expect(activate.payload).toMatchObject({ env: dep.env, version, snapshot: version, restore_data: false });
    expect(phase(dep, 'prepare').evidence).toMatchObject({ version, endpoints: [{ service: 'web', url: expect.any(String), port: expect.any(Number) }], outcome: 'healthy' });
    expect(phase(dep, 'start').evidence).toEqual({ started_in_ms: 12 });
    expect(phase(dep, 'health').evidence).toMatchObject({ healthy_in_ms: 34 });
    expect(phase(dep, 'snapshot').evidence).toEqual({ snapshot: version, datasets: [], frozen_for: 3, consistent: true });
    expect(phase(dep, 'verdict').evidence).toEqual({ version, snapshot: version, took_ms: expect.any(Number) });
    // From the request to the verdict: within what the test saw from its POST to the end.
    expect(phase(dep, 'verdict').evidence!.took_ms as number).toBeGreaterThanOrEqual(0);
    expect(phase(dep, 'verdict').evidence!.took_ms as number).toBeLessThanOrEqual(wallMs);
    // The env's endpoints are what activating the version answered (not what env.create did).
    const env = await envOf(dep.env);
    expect(env).toMatchObject({ status: 'running', current_version: version, host: agent.hostId, last_error: null });
    expect(env.endpoints).toEqual([{ service: 'web', url: `http://127.0.0.1:${healthyPort(activate)}` }]);
    expect((await api.get(`/v1/envs/${dep.env}/versions`)).body.items).toMatchObject([{ id: version, number: 1, healthy: true, snapshot: version }]);
    const depEvents = await events(`dep:${dep.id}`);
    expect(depEvents.map((e) => e.type)).toEqual(['deployment.started', 'deployment.finished']);
    expect(depEvents[1]!.data).toMatchObject({ status: 'succeeded', error: null, took_ms: expect.any(Number) });
    // From the deployment's start to its end: within what the test saw from its POST to its end.
    expect(depEvents[1]!.data.took_ms as number).toBeGreaterThanOrEqual(0);
    expect(depEvents[1]!.data.took_ms as number).toBeLessThanOrEqual(wallMs);
    expect((await events(`env:${dep.env}`)).map((e) => e.type)).toEqual(expect.arrayContaining(['deployment.started', 'apply_succeeded', 'deployment.finished']));
  });

  it('a version that fails health is reverted: env.rollback of the previous version (data kept), which is current again, at the endpoints that answer gave', async () => {
    const first = await deploy('rb', { compose: compose('good') });
    const v1 = phase(first.dep, 'resolve').evidence!.version as string;
    agent.answer = answering({ 'env.create': () => notHealthy('unhealthy', 'web: GET /healthz did not answer 2xx within 1000 ms (last: HTTP 500)') });
    const { dep, commands } = await deploy('rb', { compose: compose('bad') });
    agent.answer = working();
    expect(dep.status).toBe('rolled_back');
    expect(dep.error).toBe('health: web: GET /healthz did not answer 2xx within 1000 ms (last: HTTP 500)');
    expect(dep.phases.map((p) => p.status)).toEqual(['ok', 'ok', 'skipped', 'skipped', 'ok', 'ok', 'failed', 'skipped', 'skipped', 'skipped', 'ok']);
    for (const name of ['warm', 'snapshot', 'ingress']) expect(phase(dep, name).evidence, name).toEqual({ reason: 'health failed' });
    expect(phase(dep, 'health').evidence).toMatchObject({ error: 'web: GET /healthz did not answer 2xx within 1000 ms (last: HTTP 500)' });
    expect(phase(dep, 'resolve').evidence).toMatchObject({ number: 2, previous: v1 });
    expect(commands.map((c) => c.kind)).toEqual(['env.create', 'env.rollback']);
    expect(commands[1]!.payload).toMatchObject({ env: dep.env, version: v1, snapshot: v1, restore_data: false });
    expect(commands[1]!.payload.services.web.environment).toEqual({ VERSION: 'good' });
    expect(phase(dep, 'verdict').evidence).toEqual({ reverted_to: v1, took_ms: expect.any(Number) });
    const env = await envOf(dep.env);
    expect(env).toMatchObject({ status: 'running', current_version: v1, last_error: dep.error });
    expect(env.endpoints).toEqual([{ service: 'web', url: `http://127.0.0.1:${healthyPort(commands[1]!)}` }]);
    const versions = (await api.get(`/v1/envs/${dep.env}/versions`)).body.items as { number: number; healthy: boolean }[];
    expect(versions.map((v) => [v.number, v.healthy]).sort()).toEqual([[1, true], [2, false]]);
    // Rolled back counts as an applied outcome (the previous version serves): apply_succeeded, saying so.
    expect((await events(`env:${dep.env}`)).filter((e) => e.type.startsWith('apply_')).at(-1)).toMatchObject({ type: 'apply_succeeded', data: { deployment: dep.id, status: 'rolled_back', error: dep.error } });
  });

  it('a first version that does not start fails: no previous version, nothing reverted, the env failed', async () => {
    agent.answer = answering({ 'env.create': () => notHealthy('start_failed', 'web: exited with code 1 during start') });
    const { dep, commands } = await deploy('first', { compose: compose('x') });
    agent.answer = working();
    expect(dep.status).toBe('failed');
    expect(dep.error).toBe('start: web: exited with code 1 during start');
    expect(phase(dep, 'start')).toMatchObject({ status: 'failed', evidence: { error: 'web: exited with code 1 during start', started_in_ms: 5 } });
    expect(phase(dep, 'health')).toMatchObject({ status: 'skipped', evidence: { reason: 'start failed' } });
    expect(phase(dep, 'verdict').evidence).toEqual({ reverted: 'no previous version', took_ms: expect.any(Number) });
    expect(commands.map((c) => c.kind)).toEqual(['env.create']);
    expect(await envOf(dep.env)).toMatchObject({ status: 'failed', current_version: null, last_error: dep.error });
    expect((await events(`env:${dep.env}`)).filter((e) => e.type.startsWith('apply_')).at(-1)).toMatchObject({ type: 'apply_failed', data: { deployment: dep.id, status: 'failed' } });
  });

  it('a revert the host cannot do fails the verdict: the deployment is failed, with the reason', async () => {
    await deploy('norevert', { compose: compose('good') });
    agent.answer = answering({
      'env.create': () => notHealthy('unhealthy', 'web: unhealthy'),
      'env.rollback': () => {
        throw new Error('disk full');
      },
    });
    const { dep, commands } = await deploy('norevert', { compose: compose('bad') });
    agent.answer = working();
    expect(dep.status).toBe('failed');
    expect(dep.error).toBe('health: web: unhealthy');
    expect(phase(dep, 'verdict')).toMatchObject({ status: 'failed', evidence: { reverted: 'rollback failed: disk full' } });
    expect(commands.map((c) => c.kind)).toEqual(['env.create', 'env.rollback']);
    expect((await envOf(dep.env)).status).toBe('failed');
  });

  it('a deploy the host refused before any effect (a hard gate of every image pipeline) changes nothing: no revert, the env serves as before', async () => {
    const first = await deploy('gate', { compose: compose('good') });
    const before = await envOf(first.dep.env);
    const refusal = {
      ...notHealthy('start_failed', 'web: admit: replayed'),
      pipelines: { web: { state: 'failure', stages: [{ name: 'admit', status: 'failed', detail: 'replayed', took_ms: 1 }, { name: 'verify', status: 'skipped', detail: 'not run', took_ms: 0 }] } },
    };
    agent.answer = answering({ 'env.create': () => refusal });
    const { dep, commands } = await deploy('gate', { compose: compose('again') });
    agent.answer = working();
    expect(dep.status).toBe('failed');
    expect(phase(dep, 'verdict').evidence).toEqual({ changed: false, refused: { web: 'admit' }, current_version: before.current_version, took_ms: expect.any(Number) });
    expect(commands.map((c) => c.kind)).toEqual(['env.create']);
    expect(await envOf(dep.env)).toMatchObject({ status: 'running', current_version: before.current_version, endpoints: before.endpoints, last_error: dep.error });
  });

  it('an agent that cannot do the work (an error, not a failure) fails the phase with its code, and the verdict reverts', async () => {
    const first = await deploy('err', { compose: compose('good') });
    agent.answer = answering({
      'env.create': () => {
        throw new Error('docker runtime not available on this host');
      },
    });
    const { dep } = await deploy('err', { compose: compose('bad') });
    agent.answer = working();
    expect(dep.status).toBe('rolled_back');
    expect(phase(dep, 'prepare')).toMatchObject({ status: 'failed', evidence: { error: expect.stringContaining('docker runtime not available on this host'), code: expect.any(String) } });
    expect(dep.error).toMatch(/^prepare: .*docker runtime not available on this host/);
    expect(phase(dep, 'verdict').evidence).toMatchObject({ reverted_to: phase(first.dep, 'resolve').evidence!.version });
  });

  it('a warm command runs in the first service; a non-zero exit fails warm with its stderr', async () => {
    agent.answer = answering({ 'env.exec': () => ({ exit: 3, stdout: '', stderr: 'cold cache', timed_out: false }) });
    const { dep, commands } = await deploy('warm', { compose: compose('w'), warm: ['./warm.sh', '--all'] });
    agent.answer = working();
    expect(commands.find((c) => c.kind === 'env.exec')!.payload).toEqual({ env: dep.env, service: 'web', command: ['./warm.sh', '--all'], timeout_ms: 600_000 });
    expect(dep.status).toBe('failed');
    expect(dep.error).toBe('warm: warm command exited with 3');
    expect(phase(dep, 'warm')).toMatchObject({ status: 'failed', evidence: { exit: 3, stderr: 'cold cache' } });
    const ok = await deploy('warm2', { compose: compose('w'), warm: ['true'] });
    expect(phase(ok.dep, 'warm')).toMatchObject({ status: 'ok', evidence: { exit: 0 } });
  });

  it('one deployment of an env at a time: a second deploy waits for the first to finish, then runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const base = working();
    agent.answer = (c) => (c.kind === 'env.create' && c.payload.services.web.environment.VERSION === 'slow' ? held.then(() => base(c)) : base(c));
    const a = await api.post('/v1/projects/app/deploy', { env: 'queue', compose: compose('slow') });
    await waitUntil(async () => agent.received.some((c) => c.kind === 'env.create' && c.payload.env === a.body.env.id));
    const b = await api.post('/v1/projects/app/deploy', { env: 'queue', compose: compose('next') });
    expect(b.status).toBe(202);
    // B waits while A holds the env (A's env.create is in flight): B has asked nothing of the host.
    const bBefore = (await api.get(`/v1/deployments/${b.body.deployment.id}`)).body as Deployment;
    expect(bBefore.status).toBe('pending');
    release();
    const [da, db] = [await api.finished(a.body.deployment.id), await api.finished(b.body.deployment.id)];
    agent.answer = working();
    expect([da.status, db.status]).toEqual(['succeeded', 'succeeded']);
    expect(Date.parse(db.phases[0]!.started_at!)).toBeGreaterThanOrEqual(Date.parse(da.finished_at!));
    expect((await envOf(da.env)).current_version).toBe(phase(db, 'resolve').evidence!.version);
  });

  it('stop, start, teardown: each asks its command, records its verdict, and moves the env', async () => {
    const { dep } = await deploy('life', { compose: compose('l1') });
    const version = phase(dep, 'resolve').evidence!.version as string;
    const act = async (action: string) => {
      const before = agent.received.length;
      const res = action === 'teardown' ? await api.req('DELETE', `/v1/envs/${dep.env}`) : await api.post(`/v1/envs/${dep.env}/${action}`);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const done = await api.finished(res.body.deployment.id);
      return { done, commands: agent.received.slice(before).filter((c) => c.payload.env === dep.env) };
    };
    const stop = await act('stop');
    expect(stop.done.status).toBe('succeeded');
    expect(stop.commands.map((c) => [c.kind, c.payload])).toEqual([['env.stop', { env: dep.env }]]);
    expect(stop.done.phases.map((p) => [p.name, p.status, p.evidence])).toEqual([
      ['stop', 'ok', { host: agent.hostId, stopped: 1, ports_released: 1 }],
      ['verdict', 'ok', { stopped: true, version }],
    ]);
    expect((await envOf(dep.env)).status).toBe('stopped');

    const start = await act('start');
    expect(start.done.status).toBe('succeeded');
    expect(start.commands.map((c) => c.kind)).toEqual(['env.rollback']);
    expect(start.commands[0]!.payload).toMatchObject({ version, restore_data: false });
    expect(start.done.phases.at(-1)!.evidence).toEqual({ version, started: true });
    const started = await envOf(dep.env);
    expect(started.status).toBe('running');
    expect(started.endpoints).toEqual([{ service: 'web', url: `http://127.0.0.1:${healthyPort(start.commands[0]!)}` }]);

    const down = await act('teardown');
    expect(down.done.status).toBe('succeeded');
    expect(down.commands.map((c) => [c.kind, c.payload])).toEqual([['env.destroy', { env: dep.env }]]);
    expect(await envOf(dep.env)).toMatchObject({ status: 'torn_down', endpoints: [] });
  });

  it('a stop the host fails leaves the env failed, with the error', async () => {
    const { dep } = await deploy('stopfail', { compose: compose('s') });
    agent.answer = answering({
      'env.stop': () => {
        throw new Error('cannot signal pid 1000');
      },
    });
    const res = await api.post(`/v1/envs/${dep.env}/stop`);
    const done = await api.finished(res.body.deployment.id);
    agent.answer = working();
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^stop: .*cannot signal pid 1000/);
    expect(done.phases.at(-1)).toMatchObject({ name: 'verdict', status: 'ok', evidence: { stopped: false } });
    expect(await envOf(dep.env)).toMatchObject({ status: 'failed', last_error: done.error });
  });

  it('a command the host never answers fails its phase once the command timeout passes; the deployment still ends', async () => {
    const slow = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), commandTimeoutMs: 1500, log: () => {} });
    const host = await connectFakeAgent(slow.url, await slow.createEnrollmentKey(), (c) => (c.kind === 'env.create' ? HOLD : working()(c)));
    try {
      const a = new Api(slow.url, slow.adminToken);
      await a.post('/v1/projects', { name: 'app' });
      const res = await a.post('/v1/projects/app/deploy', { compose: compose('t') });
      const dep = await a.finished(res.body.deployment.id);
      expect(dep.status).toBe('failed');
      expect(dep.error).toBe('prepare: timed out after 1500 ms');
      expect(dep.phases.find((p) => p.name === 'verdict')).toMatchObject({ status: 'ok', evidence: { reverted: 'no previous version' } });
    } finally {
      await host.close();
      await slow.close();
    }
  });
});

/** The working host, except for the kinds given. */
function answering(overrides: Partial<Record<string, (c: ReceivedCommand) => unknown>>): (c: ReceivedCommand) => unknown {
  const base = working();
  return (c) => (overrides[c.kind] ? overrides[c.kind]!(c) : base(c));
}

async function waitUntil(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
