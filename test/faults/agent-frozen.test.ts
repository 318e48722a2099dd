/**
 * Fault: the agent is frozen (SIGSTOP) past a service's health timeout while it waits for the new
 * version to become healthy (issue 11, item 3). The service became healthy meanwhile; the frozen
 * wait must not count the time it was stopped against the service: when the agent runs again it
 * probes once more, the deployment succeeds within 60 s, and only the new version runs.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { appCompose, appliedTwice, lifecycleEvents, TERMINAL_WITHIN_MS, versionsRunning } from '../helpers/faults.js';
import { FAST_TIMINGS, killServiceProcesses } from '../helpers/harness.js';
import { startAgentProcess, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const HEALTH_TIMEOUT_MS = 3000;

describe('agent frozen past the health timeout', () => {
  const dir = freshDataDir('denv-fault-frozen-');
  const agentDir = join(dir, 'agent');
  const run = `frozen-${process.pid}-${Date.now()}`;
  let cp: ControlPlane;
  let api: Api;
  let agent: Child;

  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(dir, 'cp'))), ...FAST_TIMINGS, commandTimeoutMs: 600_000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    agent = startAgentProcess({ control: cp.url, enrollmentKey: await cp.createEnrollmentKey(), dataDir: agentDir });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await api.post('/v1/projects', { name: 'ice' });
  }, 120_000);

  afterAll(async () => {
    agent?.proc.kill('SIGCONT');
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
    await cp?.close();
  });

  it('the deploy succeeds once the agent runs again; only the new version runs', async () => {
    const deploy = async (version: string, environment: Record<string, string> = {}) =>
      (await api.post('/v1/projects/ice/deploy', { env: 'main', compose: appCompose({ run, env: 'main', version, environment, health: { timeout: `${HEALTH_TIMEOUT_MS}ms` } }) })).body.deployment.id as string;
    expect((await api.finished(await deploy('v1'))).status).toBe('succeeded');

    const id = await deploy('v2', { STARTUP_DELAY_MS: '500' });
    await waitFor(() => versionsRunning(run, 'main').includes('v2'), 20_000, 'v2 to be spawned (the agent is waiting for its health)');
    agent.proc.kill('SIGSTOP');
    // The fault itself: frozen for longer than the health timeout (nothing to await but time).
    await new Promise((r) => setTimeout(r, HEALTH_TIMEOUT_MS + 1500));
    agent.proc.kill('SIGCONT');
    const resumedAt = Date.now();

    const dep = await api.finished(id, TERMINAL_WITHIN_MS);
    expect(Date.now() - resumedAt).toBeLessThan(TERMINAL_WITHIN_MS);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    await waitFor(() => versionsRunning(run, 'main').join() === 'v2', 10_000, `only v2 to run (running: ${versionsRunning(run, 'main').join(', ')})`);
    expect(appliedTwice(agentDir)).toEqual([]);
    expect(await lifecycleEvents(api, id)).toEqual({ started: 1, finished: 1 });
  }, 120_000);
});
