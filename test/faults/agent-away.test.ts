/**
 * Fault: the agent dies with env.create in flight and stays away longer than the phase timeout
 * (issue 11, item 1: "an env never ends with two versions running"). The deployment cannot wait:
 * `prepare` times out, the verdict cannot reach the host, the deployment ends `failed` with the
 * old version still current. When the agent comes back, the command of that finished deployment
 * must not be sent to it again — resuming it would start the abandoned version beside the one
 * serving. The control plane closes it (`ABANDONED`) when the deployment ends.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { appCompose, exitOf, killPointsEnv, versionsRunning } from '../helpers/faults.js';
import { FAST_TIMINGS, killServiceProcesses } from '../helpers/harness.js';
import { startAgentProcess, testPortRange, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

describe('agent away longer than the phase timeout', () => {
  const dir = freshDataDir('denv-fault-away-');
  const agentDir = join(dir, 'agent');
  const ports = testPortRange();
  const run = `away-${process.pid}-${Date.now()}`;
  let cp: ControlPlane;
  let api: Api;
  let agent: Child;
  let databaseUrl = '';

  beforeAll(async () => {
    const store = await storeOptions('postgres', join(dir, 'cp'));
    databaseUrl = store.databaseUrl!;
    cp = await startControlPlane({ port: 0, ...store, ...FAST_TIMINGS, commandTimeoutMs: 4000, agentWaitMs: 1000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    agent = startAgentProcess({ control: cp.url, enrollmentKey: await cp.createEnrollmentKey(), dataDir: agentDir, ports });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await api.post('/v1/projects', { name: 'away' });
  }, 120_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
    await cp?.close();
  });

  it('does not send the finished deployment its command again: only the old version runs', async () => {
    const deploy = async (version: string) => (await api.post('/v1/projects/away/deploy', { env: 'main', compose: appCompose({ run, env: 'main', version }) })).body.deployment.id as string;
    expect((await api.finished(await deploy('v1'))).status).toBe('succeeded');

    // The agent dies as it starts v2's env.create, and stays away.
    await agent.kill('SIGKILL');
    agent = startAgentProcess({ control: cp.url, dataDir: agentDir, ports, env: killPointsEnv(['command:env.create:start'], join(dir, 'fired')) });
    // Connected before v2 is deployed: on a loaded machine a slow agent start would otherwise
    // outlast the 4 s phase timeout, and the command it should die on would never reach it.
    await agent.waitForOutput(/welcomed as/);
    const id = await deploy('v2');
    await exitOf(agent);
    const dep = await api.finished(id, 60_000);
    expect(dep.status).toBe('failed');
    expect(dep.phases.find((p) => p.name === 'prepare')?.status).toBe('failed');

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = (await db.query("select status, error from commands where deployment = $1 and kind = 'env.create'", [id])).rows;
      expect(rows).toEqual([{ status: 'error', error: { code: 'ABANDONED', message: 'the deployment ended failed before the agent answered' } }]);
    } finally {
      await db.end();
    }

    // Back: whatever is re-sent on the reconnect arrives before the answer to a later request.
    agent = startAgentProcess({ control: cp.url, dataDir: agentDir, ports });
    await agent.waitForOutput(/welcomed as/);
    const envId = dep.env;
    expect((await api.get(`/v1/envs/${envId}/snapshots`)).status).toBe(200);
    expect(agent.output()).toMatch(/env\.create was cut short by a restart/);
    expect(agent.output()).not.toMatch(/env\.create started/);
    expect(versionsRunning(run, 'main')).toEqual(['v1']);
  }, 120_000);
});
