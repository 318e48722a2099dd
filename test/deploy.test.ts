/**
 * The deploy kind end to end: real control plane (PGlite and the PostgreSQL server), a real agent
 * process over a real WebSocket, real service processes answering HTTP.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { STORES } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

export function appCompose(o: { version: string; mode?: string; warm?: string[]; volume?: boolean; restart?: string }) {
  return {
    services: {
      web: {
        command: ['node', APP],
        environment: { VERSION: o.version, MODE: o.mode ?? 'ok' },
        ...(o.restart ? { restart: o.restart } : {}),
        'x-denv': { health: { path: '/healthz', timeout: '3s' } },
        ...(o.volume ? { volumes: ['data:/data'] } : {}),
      },
    },
    ...(o.volume ? { volumes: { data: {} } } : {}),
    ...(o.warm ? { 'x-denv': { warm: o.warm } } : {}),
  };
}

const SEED_EVIDENCE: Record<string, string[]> = {
  resolve: ['version', 'number', 'services', 'volumes'],
  place: ['host', 'reason'],
  prepare: ['version', 'endpoints'],
  start: ['started_in_ms'],
  health: ['endpoints'],
  snapshot: ['snapshot', 'datasets', 'frozen_for', 'consistent'],
  ingress: ['endpoints', 'names'],
  verdict: ['version', 'snapshot', 'took_ms'],
};

async function get(url: string): Promise<string> {
  const res = await fetch(url);
  return res.text();
}

/** SIGKILL every process of `version` of `env` the agent recorded (its state.json). */
function killVersion(agentDir: string, env: string, version: string): void {
  const state = JSON.parse(readFileSync(join(agentDir, 'envs', env, 'state.json'), 'utf8')) as { services: { version: string; pid: number | null }[] };
  const pids = state.services.filter((s) => s.version === version && s.pid).map((s) => s.pid!);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
}

/** A server on 127.0.0.1:`port` answering `text` to every request. */
function listen(port: number, text: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(text));
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server)));
}

describe.each(STORES)('deploy on %s', (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
    expect((await h.api.post('/v1/projects', { name: 'app' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function deploy(env: string, compose: unknown, extra: Record<string, unknown> = {}): Promise<Deployment> {
    const res = await h.api.post('/v1/projects/app/deploy', { compose, env, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return h.api.finished(res.body.deployment.id);
  }

  it('succeeds through the eleven phases with seed 000 evidence, and the app answers HTTP', async () => {
    const dep = await deploy('production', appCompose({ version: 'v1', volume: true }));
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(dep.phases.map((p) => p.name)).toEqual(['resolve', 'place', 'provision', 'join', 'prepare', 'start', 'health', 'warm', 'snapshot', 'ingress', 'verdict']);
    expect(dep.phases.map((p) => p.status)).toEqual(['ok', 'ok', 'skipped', 'skipped', 'ok', 'ok', 'ok', 'skipped', 'ok', 'skipped', 'ok']);
    for (const [phase, keys] of Object.entries(SEED_EVIDENCE)) {
      const evidence = dep.phases.find((p) => p.name === phase)!.evidence!;
      for (const key of keys) expect(evidence, `${phase}.${key}`).toHaveProperty(key);
    }
    const phase = (n: string) => dep.phases.find((p) => p.name === n)!;
    expect(phase('place').evidence).toEqual({ host: h.hostId, reason: 'first connected host in team' });
    expect(phase('snapshot').evidence).toMatchObject({ snapshot: phase('resolve').evidence!.version, datasets: ['data'], consistent: true });
    for (const p of dep.phases.filter((x) => x.status !== 'skipped')) {
      expect(p.started_at && p.finished_at, p.name).toBeTruthy();
    }

    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    expect(env).toMatchObject({ status: 'running', current_version: phase('resolve').evidence!.version, host: h.hostId, last_error: null });
    expect(await get(env.endpoints[0].url)).toMatch(/^v1 \d+$/);

    const versions = (await h.api.get(`/v1/envs/${dep.env}/versions`)).body.items;
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ number: 1, healthy: true, snapshot: versions[0].id });

    const events = (await h.api.get(`/v1/events?subject=dep:${dep.id}`)).body.items;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['deployment.started', 'deployment.finished']);
    expect(events[0].data).toMatchObject({ kind: 'deploy' });
    expect(events[1].data).toMatchObject({ status: 'succeeded', error: null });
    expect(typeof events[1].data.took_ms).toBe('number');
    const envEvents = (await h.api.get(`/v1/events?subject=env:${dep.env}`)).body.items.map((e: { type: string }) => e.type);
    expect(envEvents).toEqual(expect.arrayContaining(['deployment.started', 'deployment.finished']));
  });

  it.each([
    ['exits at once', 'crash', 'start'],
    ['fails health', 'unhealthy', 'health'],
  ])('a broken second version that %s rolls back, and the first version answers again', async (_what, mode, failedPhase) => {
    const first = await deploy(`rb-${mode}`, appCompose({ version: 'good' }));
    expect(first.status).toBe('succeeded');
    const v1 = first.phases[0]!.evidence!.version;
    const broken = await deploy(`rb-${mode}`, appCompose({ version: 'bad', mode }));
    expect(broken.status).toBe('rolled_back');
    expect(broken.error).toMatch(new RegExp(`^${failedPhase}: `));
    const failedAt = broken.phases.findIndex((p) => p.status === 'failed');
    expect(broken.phases[failedAt]!.name).toBe(failedPhase);
    for (const p of broken.phases.slice(failedAt + 1, -1)) expect(p.status, p.name).toBe('skipped');
    expect(broken.phases.at(-1)).toMatchObject({ name: 'verdict', status: 'ok', evidence: { reverted_to: v1 } });
    const env = (await h.api.get(`/v1/envs/${broken.env}`)).body;
    expect(env).toMatchObject({ status: 'running', current_version: v1 });
    expect(env.last_error).toBe(broken.error);
    expect(await get(env.endpoints[0].url)).toMatch(/^good \d+$/);
  });

  it('a revert brings the previous version back when it died meanwhile: restarted (its port taken, on another), current again, and the env points at it', async () => {
    const env = `rb-dead`;
    const first = await deploy(env, appCompose({ version: 'good', restart: 'no' }));
    expect(first.status, first.error ?? '').toBe('succeeded');
    const v1 = first.phases[0]!.evidence!.version as string;
    const oldUrl = (await h.api.get(`/v1/envs/${first.env}`)).body.endpoints[0].url as string;
    const [, oldPid] = (await get(oldUrl)).split(' ');
    // v1 dies (restart: no keeps it dead), and something else takes its port.
    killVersion(h.agentDir, first.env, v1);
    await waitFor(async () => !(await fetch(oldUrl).then(() => true, () => false)), 10_000, 'v1 to stop answering');
    const squatter = await listen(Number(new URL(oldUrl).port), 'squatter');
    try {
      const broken = await deploy(env, appCompose({ version: 'bad', mode: 'unhealthy' }));
      expect(broken.status, broken.error ?? '').toBe('rolled_back');
      expect(broken.phases.at(-1)).toMatchObject({ name: 'verdict', status: 'ok', evidence: { reverted_to: v1 } });
      const after = (await h.api.get(`/v1/envs/${first.env}`)).body;
      expect(after).toMatchObject({ status: 'running', current_version: v1 });
      // Only a real revert serves again: env.rollback restarted v1, and the env's endpoints are the new ones.
      expect(after.endpoints).toHaveLength(1);
      expect(after.endpoints[0].url).not.toBe(oldUrl);
      const answer = await get(after.endpoints[0].url);
      expect(answer).toMatch(/^good \d+$/);
      expect(answer).not.toBe(`good ${oldPid}`);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });

  it('a broken first version leaves the env failed', async () => {
    const dep = await deploy('first-broken', appCompose({ version: 'x', mode: 'crash' }));
    expect(dep.status).toBe('failed');
    expect(dep.error).toMatch(/^start: /);
    expect(dep.phases.at(-1)).toMatchObject({ name: 'verdict', evidence: { reverted: 'no previous version' } });
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    expect(env).toMatchObject({ status: 'failed', current_version: null, last_error: dep.error });
  });

  it('a warm command that exits 1 fails warm', async () => {
    const dep = await deploy('warm', appCompose({ version: 'w' }), { warm: ['node', '-e', 'console.error("cold"); process.exit(1)'] });
    expect(dep.status).toBe('failed');
    const warm = dep.phases.find((p) => p.name === 'warm')!;
    expect(warm.status).toBe('failed');
    expect(warm.evidence).toMatchObject({ exit: 1, stderr: expect.stringContaining('cold') });
    expect(dep.error).toBe('warm: warm command exited with 1');
  });
});
