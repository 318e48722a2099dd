/**
 * Placement that sees resources (issue 14): agents report their CPUs and memory, and `place` skips
 * a host that cannot hold the spec's resource limits, naming it and why; when every connected host
 * refuses, the deploy fails there, naming each one. A drained host takes no new env, and its own
 * envs stay; so does one whose datasets disk is nearly full. Real agent processes (a third on a
 * 64 MiB tmpfs: needs root, as CI runs).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { totalmem, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/contracts/domain.js';
import { waitFor } from '../helpers/api.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { denvJson, startAgentProcess, testPortRange, type Child } from '../helpers/processes.js';

const GiB = 1024 ** 3;
const gib = (n: number) => `${(n / GiB).toFixed(n >= 10 * GiB ? 0 : 1)} GiB`;
const compose = (limits: Record<string, unknown>) => ({ services: { web: { command: ['sleep', '300'], deploy: { resources: { limits } } } } });

describe('placement by resources', () => {
  let h: Harness;
  let second: Child;
  let secondId: string;
  beforeAll(async () => {
    h = await startHarness();
    expect((await h.api.post('/v1/projects', { name: 'app' })).status).toBe(201);
    const key = (await h.api.post('/v1/enrollment-keys', {})).body.key;
    second = startAgentProcess({ control: h.cp.url, enrollmentKey: key, dataDir: join(h.dataDir, 'second'), name: 'second-host', ports: testPortRange() });
    secondId = await waitFor(async () => (await h.api.get('/v1/hosts')).body.items.find((x: { name: string; status: string }) => x.name === 'second-host' && x.status === 'connected')?.id, 30_000, 'the second agent');
  });
  afterAll(async () => {
    await second?.kill('SIGTERM');
    await h?.close();
  });

  async function deploy(env: string, limits: Record<string, unknown>): Promise<Deployment> {
    const res = await h.api.post('/v1/projects/app/deploy', { compose: compose(limits), env });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return h.api.finished(res.body.deployment.id);
  }

  it('agents report their CPUs and memory', async () => {
    for (const host of (await h.api.get('/v1/hosts')).body.items) expect(host.facts).toMatchObject({ cpus: availableParallelism(), memory_bytes: totalmem() });
  });

  it('a spec asking for more memory than any host has: place fails naming why each host was refused, and nothing starts', async () => {
    const dep = await deploy('huge', { memory: '4096g' });
    expect(dep.status).toBe('failed');
    const why = `needs 4096 GiB of memory, has ${gib(totalmem())}`;
    const place = dep.phases.find((p) => p.name === 'place')!;
    expect(place).toMatchObject({ status: 'failed', evidence: { host: null, reason: 'no connected host can hold the spec' } });
    expect((place.evidence as { skipped: unknown }).skipped).toEqual([
      { host: h.hostId, name: 'test-host', why },
      { host: secondId, name: 'second-host', why },
    ]);
    expect(dep.error).toBe(`place: no connected host can hold this spec: test-host: ${why}; second-host: ${why}`);
    expect(dep.phases.slice(2, -1).every((p) => p.status === 'skipped')).toBe(true);
  });

  it('a spec that fits goes to the first connected host; one limited to more CPUs than a requested host has is refused there', async () => {
    const fits = await deploy('small', { memory: '64m', cpus: '1' });
    expect(fits.status, fits.error ?? '').toBe('succeeded');
    expect(fits.phases.find((p) => p.name === 'place')!.evidence).toEqual({ host: h.hostId, reason: 'first connected host in team' });
    const res = await h.api.post('/v1/projects/app/deploy', { compose: compose({ cpus: String(availableParallelism() + 1) }), env: 'wide', target: { host: 'second-host' } });
    const wide = await h.api.finished(res.body.deployment.id);
    expect(wide.status).toBe('failed');
    expect(wide.error).toBe(`place: host second-host cannot hold this spec: a service is limited to ${availableParallelism() + 1} CPUs, it has ${availableParallelism()}`);
  });

  it('a drained host takes no new env: new envs go to the next host, a request for it is refused, its own env redeploys there; undrained it takes envs again', async () => {
    const cli = (args: string[]) => denvJson(h.cp, args);
    const before = await deploy('stays', {});
    expect(before.phases.find((p) => p.name === 'place')!.evidence).toMatchObject({ host: h.hostId });
    expect(await cli(['hosts', 'drain', 'test-host'])).toMatchObject({ id: h.hostId, drained_at: expect.any(String), envs: 2 });
    const listed = (await h.api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === h.hostId);
    expect(listed.drained_at).toEqual(expect.any(String));

    const moved = await deploy('new-one', {});
    expect(moved.status, moved.error ?? '').toBe('succeeded');
    expect(moved.phases.find((p) => p.name === 'place')!.evidence).toEqual({ host: secondId, reason: 'first connected host in team', skipped: [{ host: h.hostId, name: 'test-host', why: 'drained: it takes no new env' }] });
    const res = await h.api.post('/v1/projects/app/deploy', { compose: compose({}), env: 'asks-for-it', target: { host: 'test-host' } });
    const refused = await h.api.finished(res.body.deployment.id);
    expect(refused.error).toBe('place: host test-host is drained: it takes no new env (denv hosts undrain test-host)');
    // The env already there redeploys there.
    const again = await deploy('stays', { memory: '32m' });
    expect(again.status, again.error ?? '').toBe('succeeded');
    expect(again.phases.find((p) => p.name === 'place')!.evidence).toEqual({ host: h.hostId, reason: 'environment already on host' });

    expect(await cli(['hosts', 'undrain', h.hostId])).toMatchObject({ drained_at: null });
    const back = await deploy('after-undrain', {});
    expect(back.phases.find((p) => p.name === 'place')!.evidence).toEqual({ host: h.hostId, reason: 'first connected host in team' });
    const events = (await h.api.get(`/v1/events?subject=host:${h.hostId}`)).body.items.map((e: { type: string }) => e.type);
    expect(events.filter((t: string) => t === 'host.drained' || t === 'host.undrained')).toEqual(['host.drained', 'host.undrained']);
  });

  it('a host whose datasets disk has less than 512 MiB free takes no new env; heartbeats keep its free disk current', async () => {
    const small = join(h.dataDir, 'small-disk');
    mkdirSync(small, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', small]);
    const key = (await h.api.post('/v1/enrollment-keys', {})).body.key;
    const third = startAgentProcess({ control: h.cp.url, enrollmentKey: key, dataDir: join(h.dataDir, 'third'), name: 'small-disk', ports: testPortRange(), datasets: small });
    try {
      const hostOf = async () => (await h.api.get('/v1/hosts')).body.items.find((x: { name: string; status: string }) => x.name === 'small-disk' && x.status === 'connected');
      const host = await waitFor(hostOf, 30_000, 'the small-disk agent');
      expect(host.facts).toMatchObject({ disk_bytes: 64 * 1024 ** 2, disk_free_bytes: expect.any(Number) });
      const res = await h.api.post('/v1/projects/app/deploy', { compose: compose({}), env: 'no-room', target: { host: 'small-disk' } });
      const refused = await h.api.finished(res.body.deployment.id);
      expect(refused.error).toMatch(/^place: host small-disk cannot hold this spec: has (6[0-4]) MiB of disk free for datasets, a new env needs 512 MiB$/);
      // 16 MiB written there: the next heartbeats say so.
      writeFileSync(join(small, 'filler'), Buffer.alloc(16 * 1024 ** 2));
      await waitFor(async () => (await hostOf())?.facts.disk_free_bytes <= host.facts.disk_free_bytes - 16 * 1024 ** 2, 30_000, 'a heartbeat with less free disk');
    } finally {
      await third.kill('SIGTERM');
      execFileSync('umount', ['-l', small]);
    }
  });
});
