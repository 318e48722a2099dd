/**
 * Fault: the agent is SIGKILLed with a command in flight (issue 11, item 1), in `prepare`
 * (env.create: the new version's process spawned, not healthy yet), in `snapshot` (env.snapshot:
 * the services paused for the copy) and in `verdict` (env.rollback), and at crash points at the
 * start and end of each of those commands (src/lib/kill-point.ts). A real agent process, restarted
 * at once on the same data dir, against a control plane whose phase timeout is far away.
 *
 * Each time the deployment is terminal within 60 s of the agent's restart — the control plane
 * sends the open command again when the host reconnects and the agent resumes the run its restart
 * cut short — it succeeds, only the new version runs (once, not paused), and the agent applied
 * each command once.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/contracts/domain.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import {
  appCompose, appliedTwice, deliveries, exitOf, firedPoints, killPointsEnv, lifecycleEvents, procState, runningServices, terminalOrExit, TERMINAL_WITHIN_MS, versionsRunning,
} from '../helpers/faults.js';
import { FAST_TIMINGS, killServiceProcesses } from '../helpers/harness.js';
import { startAgentProcess, testPortRange, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

describe('agent SIGKILLed with a command in flight', () => {
  const dir = freshDataDir('denv-fault-agent-');
  const agentDir = join(dir, 'agent');
  const ports = testPortRange();
  const run = `agentkill-${process.pid}-${Date.now()}`;
  let cp: ControlPlane;
  let api: Api;
  let agent: Child;
  let deployments = 0;

  const startAgent = (env?: Record<string, string>) => startAgentProcess({ control: cp.url, dataDir: agentDir, ports, env });

  beforeAll(async () => {
    // The phase timeout is 10 min: a deployment that waited for it would fail the 60 s bound.
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(dir, 'cp'))), ...FAST_TIMINGS, commandTimeoutMs: 600_000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    agent = startAgentProcess({ control: cp.url, enrollmentKey: await cp.createEnrollmentKey(), dataDir: agentDir, ports });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await api.post('/v1/projects', { name: 'cut' });
  }, 120_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
    await cp?.close();
  });

  async function deploy(env: string, version: string, o: { environment?: Record<string, string>; volume?: boolean } = {}): Promise<string> {
    const res = await api.post('/v1/projects/cut/deploy', { env, compose: appCompose({ run, env, version, ...o }) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    deployments++;
    return res.body.deployment.id;
  }

  /** Kill the agent now and start it again at once; returns when the deployment is terminal (≤ 60 s after the restart). */
  async function killAndRestart(id: string): Promise<Deployment> {
    await agent.kill('SIGKILL');
    agent = startAgent();
    const restartedAt = Date.now();
    const dep = await api.finished(id, TERMINAL_WITHIN_MS);
    expect(Date.now() - restartedAt).toBeLessThan(TERMINAL_WITHIN_MS);
    return dep;
  }

  async function expectOnly(env: string, version: string, dep: Deployment): Promise<void> {
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    await waitFor(() => versionsRunning(run, env).join() === version, 10_000, `only ${version} to run in ${env} (running: ${versionsRunning(run, env).join(', ')})`);
    const procs = runningServices(run).filter((s) => s.env === env);
    expect(procs).toHaveLength(1); // started once (adopted after the restart, never doubled)
    expect(procState(procs[0]!.pid)).not.toBe('T'); // not left paused
    const endpoint = (await api.get(`/v1/envs/${dep.env}`)).body.endpoints[0].url;
    expect(await (await fetch(endpoint)).text()).toMatch(new RegExp(`^${version} `));
    expect(appliedTwice(agentDir)).toEqual([]);
    expect(deliveries(agentDir).filter((d) => d.kind === 'env.create' && (d.source === 'ran' || d.source === 'resumed'))).toHaveLength(deployments);
    expect(await lifecycleEvents(api, dep.id)).toEqual({ started: 1, finished: 1 });
  }

  it('in prepare, with the new version spawned but not healthy yet: resumed after the restart', async () => {
    expect((await api.finished(await deploy('p', 'v1'))).status).toBe('succeeded');
    const id = await deploy('p', 'v2', { environment: { STARTUP_DELAY_MS: '2000' } });
    await waitFor(() => versionsRunning(run, 'p').includes('v2'), 20_000, 'v2 to be spawned');
    const dep = await killAndRestart(id);
    await expectOnly('p', 'v2', dep);
    const create = deliveries(agentDir).filter((d) => d.kind === 'env.create' && d.env === dep.env);
    expect(create.at(-1)?.source).toBe('resumed'); // the cut-short run, delivered again and run again
  }, 120_000);

  it('in snapshot, with the services paused for the copy: they run again and the snapshot is taken', async () => {
    expect((await api.finished(await deploy('s', 'v1', { volume: true }))).status).toBe('succeeded');
    const envId = (await api.get('/v1/envs?project=cut')).body.items.find((e: { name: string }) => e.name === 's').id;
    // Enough files that the copy keeps the services paused for a while.
    const live = join(`${agentDir}-workloads`, 'datasets', envId, 'live', 'data', 'bulk');
    mkdirSync(live, { recursive: true });
    for (let i = 0; i < 1500; i++) writeFileSync(join(live, `f${i}`), 'x'.repeat(512));
    const id = await deploy('s', 'v2', { volume: true });
    await waitFor(() => versionsRunning(run, 's').includes('v2') && (api.get(`/v1/deployments/${id}`).then((r) => r.body.phases.find((p: { name: string }) => p.name === 'snapshot').status === 'running')), 30_000, 'the snapshot phase');
    const v2 = runningServices(run).find((s) => s.env === 's' && s.version === 'v2')!;
    await waitFor(() => procState(v2.pid) === 'T', 20_000, 'the service to be paused for the copy');
    const dep = await killAndRestart(id);
    // The restarted agent let the paused services run at once, before the snapshot was sent again.
    expect(agent.output()).toMatch(/services paused by the interrupted snapshot run again/);
    await expectOnly('s', 'v2', dep);
    expect(dep.phases.find((p) => p.name === 'snapshot')?.evidence).toMatchObject({ snapshot: expect.any(String), consistent: true });
  }, 120_000);

  it('at the start and the end of env.create, env.snapshot and env.rollback (prepare, snapshot, verdict)', async () => {
    expect((await api.finished(await deploy('k', 'v1', { volume: true }))).status).toBe('succeeded');
    const points = ['env.create', 'env.snapshot', 'env.rollback'].flatMap((k) => [`command:${k}:start`, `command:${k}:end`]);
    const onceDir = join(dir, 'fired-agent');
    const env = killPointsEnv(points, onceDir);
    await agent.kill('SIGKILL');
    agent = startAgent(env);
    const id = await deploy('k', 'v2', { volume: true });
    let crashes = 0;
    let dep: Deployment | 'exited';
    for (;;) {
      dep = await terminalOrExit(api, id, agent, TERMINAL_WITHIN_MS);
      if (dep !== 'exited') break;
      await exitOf(agent);
      crashes++;
      expect(agent.output(), 'the agent exited, but not at a crash point').toMatch(/kill point \S+: SIGKILL/);
      expect(crashes).toBeLessThanOrEqual(points.length);
      agent = startAgent(env);
    }
    expect(firedPoints(onceDir)).toEqual([...points].sort());
    await expectOnly('k', 'v2', dep);
  }, 120_000);
});
