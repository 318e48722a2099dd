/** Agents enroll, heartbeat and are marked connected / degraded / disconnected by heartbeat age
 *  (times shortened here); enrollment keys are checked; the host credential is stored hashed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { waitFor } from './helpers/api.js';
import { killServiceProcesses, startHarness, type Harness } from './helpers/harness.js';
import { startAgentProcess } from './helpers/processes.js';
import { freshDataDir } from './helpers/stores.js';

describe('hosts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const hostStatus = async (id: string) => (await h.api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === id)?.status;

  it('enrolls an agent, which keeps its own credential (stored hashed on the control plane)', async () => {
    const { body } = await h.api.get('/v1/hosts');
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ id: h.hostId, name: 'test-host', kind: 'sidecar', status: 'connected' });
    expect(body.items[0].facts).toMatchObject({ runtimes: expect.arrayContaining(['process']), dataset_driver: 'copy' });
    // the agent writes its credential when welcomed; the API may list the host a moment before
    const cred = await waitFor(() => JSON.parse(readFileSync(join(h.agentDir, 'credential.json'), 'utf8')), 10_000, 'credential.json');
    expect(cred.host_id).toBe(h.hostId);
    expect(JSON.stringify(body.items[0])).not.toContain(cred.credential);
    const hash = createHash('sha256').update(cred.credential).digest('hex');
    expect(hash).toHaveLength(64);
  });

  it('marks a silent host degraded, then disconnected, and connected again when it comes back', async () => {
    h.agent.proc.kill('SIGSTOP'); // alive but silent: no heartbeats
    try {
      await waitFor(async () => (await hostStatus(h.hostId)) === 'degraded', 10_000, 'degraded');
      await waitFor(async () => (await hostStatus(h.hostId)) === 'disconnected', 10_000, 'disconnected');
    } finally {
      h.agent.proc.kill('SIGCONT');
    }
    await waitFor(async () => (await hostStatus(h.hostId)) === 'connected', 15_000, 'connected again');
    const events = (await h.api.get(`/v1/events?subject=host:${h.hostId}`)).body.items.map((e: { type: string; data: { status?: string } }) => e.data.status ?? e.type);
    expect(events).toEqual(expect.arrayContaining(['host.enrolled', 'degraded', 'disconnected', 'connected']));
  });

  it('refuses an unknown enrollment key and accepts a valid single-use key once', async () => {
    const bad = startAgentProcess({ control: h.cp.url, enrollmentKey: 'denr_nope', dataDir: join(freshDataDir(), 'a') });
    try {
      await bad.waitForOutput(/unknown enrollment key/, 15_000);
    } finally {
      await bad.kill('SIGKILL');
    }
    const key = (await h.api.post('/v1/enrollment-keys', { single_use: true })).body.key;
    const first = startAgentProcess({ control: h.cp.url, enrollmentKey: key, dataDir: join(freshDataDir(), 'b'), name: 'second' });
    let second: ReturnType<typeof startAgentProcess> | undefined;
    try {
      await waitFor(async () => (await h.api.get('/v1/hosts')).body.items.some((x: { name: string }) => x.name === 'second'), 15_000, 'second host');
      second = startAgentProcess({ control: h.cp.url, enrollmentKey: key, dataDir: join(freshDataDir(), 'c'), name: 'third' });
      await second.waitForOutput(/already used/, 15_000);
      expect((await h.api.get('/v1/hosts')).body.items.map((x: { name: string }) => x.name)).not.toContain('third');
    } finally {
      await first.kill('SIGKILL');
      await second?.kill('SIGKILL');
    }
  });

  it('drains a host: refused while envs are placed there, then removed with its credential revoked and its socket closed', async () => {
    const key = (await h.api.post('/v1/enrollment-keys', {})).body.key;
    const victimDir = join(freshDataDir(), 'v');
    const victim = startAgentProcess({ control: h.cp.url, enrollmentKey: key, dataDir: victimDir, name: 'victim' });
    try {
      const id = await waitFor(async () => (await h.api.get('/v1/hosts')).body.items.find((x: { name: string; status: string }) => x.name === 'victim' && x.status === 'connected')?.id, 15_000, 'victim');
      await h.api.post('/v1/projects', { name: 'pinned' });
      const dep = await h.api.post('/v1/projects/pinned/deploy', { compose: { services: { web: { command: ['sleep', '60'] } } }, target: { host: 'victim' } });
      expect((await h.api.finished(dep.body.deployment.id)).status).toBe('succeeded');
      const refused = await h.api.req('DELETE', `/v1/hosts/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(/still has 1 env\(s\) placed on it \(production\)/);
      const removedAt = Date.now();
      const removed = await h.api.req('DELETE', `/v1/hosts/${id}?force=true`);
      expect(removed.status).toBe(200);
      expect(removed.body.status).toBe('removed');
      // the live socket is closed at once, and the agent is told its host was removed (it stops)
      await victim.waitForOutput(/was removed by an operator/, 10_000);
      expect(Date.now() - removedAt).toBeLessThan(10_000);
      const types = (await h.api.get(`/v1/events?subject=host:${id}`)).body.items.map((e: { data: { status?: string } }) => e.data.status);
      expect(types).toEqual(expect.arrayContaining(['deprovisioning', 'removed']));
    } finally {
      await victim.kill('SIGKILL');
      killServiceProcesses(victimDir);
    }
  });
});
