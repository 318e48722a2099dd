/** Agents enroll, heartbeat and are marked connected / degraded / disconnected by heartbeat age
 *  (times shortened here); enrollment keys are checked. That the credential is stored hashed is
 *  read from the database in security/stored-secrets.test.ts. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../src/contracts/protocol.js';
import { waitFor } from './helpers/api.js';
import { killServiceProcesses, startHarness, type Harness } from './helpers/harness.js';
import { startAgentProcess } from './helpers/processes.js';
import { freshDataDir } from './helpers/stores.js';

const FACTS = { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' };

/** One hello over a real socket: the control plane's first answer. */
async function hello(url: string, auth: Record<string, string>): Promise<{ type: string; code?: string }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/agent/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answer = new Promise<{ type: string; code?: string }>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, name: 'victim', facts: FACTS, ...auth }));
  const out = await answer;
  ws.close();
  return out;
}

describe('hosts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const hostStatus = async (id: string) => (await h.api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === id)?.status;

  it('enrolls an agent, which keeps its own credential; the API never shows it', async () => {
    const { body } = await h.api.get('/v1/hosts');
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ id: h.hostId, name: 'test-host', kind: 'sidecar', status: 'connected' });
    expect(body.items[0].facts).toMatchObject({ runtimes: expect.arrayContaining(['process']), dataset_driver: 'copy' });
    // the agent writes its credential when welcomed; the API may list the host a moment before
    const cred = await waitFor(() => JSON.parse(readFileSync(join(h.agentDir, 'credential.json'), 'utf8')), 10_000, 'credential.json');
    expect(cred.host_id).toBe(h.hostId);
    expect(cred.credential).toMatch(/\S{20,}/);
    expect(JSON.stringify(body.items[0])).not.toContain(cred.credential);
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

  it('removes a host: refused while envs are placed there, then removed with its credential revoked and its socket closed', async () => {
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
      const removed = await h.api.req('DELETE', `/v1/hosts/${id}?force=true`);
      expect(removed.status).toBe(200);
      expect(removed.body.status).toBe('removed');
      // The live socket is closed by the removal (its heartbeats would keep it open for good
      // otherwise); the agent dials again with its credential, is refused, and stops.
      await victim.waitForOutput(/was removed by an operator/, 30_000);
      const cred = JSON.parse(readFileSync(join(victimDir, 'credential.json'), 'utf8')) as { host_id: string; credential: string };
      expect(cred.host_id).toBe(id);
      expect(await hello(h.cp.url, { host_id: id, credential: cred.credential })).toMatchObject({ type: 'refused', code: 'HOST_REMOVED' });
      const types = (await h.api.get(`/v1/events?subject=host:${id}`)).body.items.map((e: { data: { status?: string } }) => e.data.status);
      expect(types).toEqual(expect.arrayContaining(['deprovisioning', 'removed']));
    } finally {
      await victim.kill('SIGKILL');
      killServiceProcesses(victimDir);
    }
  });
});
