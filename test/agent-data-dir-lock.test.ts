/**
 * One agent per data dir (agent/locks/data-dir-lock.ts), with real `denv agent` processes: a
 * second agent started on a running agent's data dir exits with an error naming the first one's
 * pid and leaves it connected as the only agent of its host; once the first is SIGKILLed, an agent
 * started at once on the data dir takes it over and connects as the same host.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.js';
import { Api, waitFor } from './helpers/api.js';
import { FAST_TIMINGS } from './helpers/harness.js';
import { startAgentProcess, testPortRange, type Child } from './helpers/processes.js';
import { freshDataDir, storeOptions } from './helpers/stores.js';

describe('an agent data dir', () => {
  const dir = freshDataDir('denv-agent-lock-');
  const agentDir = join(dir, 'agent');
  const ports = testPortRange();
  let cp: ControlPlane;
  let api: Api;
  const agents: Child[] = [];
  const start = (enrollmentKey?: string) => {
    const child = startAgentProcess({ control: cp.url, dataDir: agentDir, ports, ...(enrollmentKey ? { enrollmentKey } : {}) });
    agents.push(child);
    return child;
  };
  const hosts = async () => (await api.get('/v1/hosts')).body.items as { id: string; status: string }[];
  /** Its exit code, or 'running' if it has not exited within `ms`. */
  const exitCodeOf = (child: Child, ms: number) =>
    new Promise<number | null | 'running'>((resolve) => {
      const timer = setTimeout(() => resolve('running'), ms);
      child.proc.once('exit', (code) => (clearTimeout(timer), resolve(code)));
    });

  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(dir, 'cp'))), ...FAST_TIMINGS, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
  });
  afterAll(async () => {
    for (const a of agents) await a.kill('SIGKILL');
    await cp?.close();
  });

  it('holds one agent: a second exits naming the first, which stays connected', async () => {
    const first = start(await cp.createEnrollmentKey());
    await first.waitForOutput(/agent connected to .* as (host_\S+)/);
    const [host] = await hosts();

    const second = start();
    const code = await exitCodeOf(second, 20_000); // it waits 5 s for a holder that is exiting
    expect(code, second.output()).not.toBe('running');
    expect(code).not.toBe(0);
    expect(second.output()).toContain(`the data dir ${agentDir} is in use by another denv agent (pid ${first.proc.pid})`);
    expect(second.output()).not.toMatch(/agent connected/);

    expect(first.proc.exitCode).toBeNull();
    expect(await hosts()).toEqual([expect.objectContaining({ id: host!.id, status: 'connected' })]);
    // Its link was never taken: the first agent printed no reconnect.
    expect(first.output()).not.toMatch(/reconnect|closed by the control plane|4000/i);
  }, 60_000);

  it('is taken over at once by an agent started after the holder was killed', async () => {
    const [host] = await hosts();
    await agents[0]!.kill('SIGKILL');
    const next = start();
    await next.waitForOutput(/agent connected to .* as (host_\S+)/, 20_000);
    expect(next.output()).toContain(`as ${host!.id}`);
    await waitFor(async () => (await hosts()).every((h) => h.status === 'connected'), 10_000, 'the host to be connected again');
  }, 60_000);
});
