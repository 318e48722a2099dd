/**
 * Fault: the control plane is SIGKILLed in every phase of a deploy (issue 11, item 1). A real
 * `denv server` (embedded store) and a real agent; the server is started with crash points armed
 * (src/lib/kill-point.ts), each firing once, and started again after every crash with the same
 * list, so one deployment is walked through all of them:
 *
 *   - at the start of every phase of the deploy kind (committed `running`, work not begun);
 *   - at the end of every phase whose work leaves something beyond its own outcome (a version row,
 *     a host, agent commands answered, the env's current version), before that outcome is
 *     committed — for the other phases a kill there is a kill at the next phase's start — and on
 *     reading the agent's result of env.create, env.snapshot and env.rollback before storing it
 *     (the result is lost with the process: the agent must deliver it again).
 *
 * And between writing env.create to the agent's socket and recording the send: the env's event
 * log still gets its `cmd_sent`, once.
 *
 * After every restart the deployment moves on — to the next crash point or to its end — within
 * 60 s; it succeeds, only the new version's process runs (the old one retired at verdict, none
 * started twice), the agent applied every command once, and the deployment started and finished once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIND_PHASES, type Deployment } from '../../src/contracts/domain.js';
import { Api, waitFor } from '../helpers/api.js';
import {
  appCompose, appliedTwice, deliveries, exitOf, firedPoints, killPointsEnv, lifecycleEvents, spawnServer, terminalOrExit, TERMINAL_WITHIN_MS, versionsRunning,
} from '../helpers/faults.js';
import { lateBoundPort } from '../helpers/free-port.js';
import { killServiceProcesses } from '../helpers/harness.js';
import { startAgentProcess, type Child } from '../helpers/processes.js';
import { freshDataDir, seedPGlite } from '../helpers/stores.js';

const PHASES = KIND_PHASES.deploy;
const START_POINTS = PHASES.map((p) => `deploy.${p}:start`);
const END_POINTS = [...(['resolve', 'place', 'prepare', 'snapshot', 'verdict'] as const satisfies readonly (typeof PHASES)[number][]).map((p) => `deploy.${p}:end`), 'result:env.create', 'result:env.snapshot', 'result:env.rollback'];

describe('control plane SIGKILLed at a crash point in every phase of a deploy', () => {
  const dir = freshDataDir('denv-fault-cp-');
  const cpDir = join(dir, 'cp');
  const agentDir = join(dir, 'agent');
  const run = `cpkill-${process.pid}-${Date.now()}`;
  let port = 0;
  let server: Child;
  let agent: Child;
  let api: Api;

  beforeAll(async () => {
    seedPGlite(cpDir);
    port = await lateBoundPort() // bound again after each kill;
    server = spawnServer({ dataDir: cpDir, port });
    await server.waitForOutput(/listening on/);
    api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());
    agent = startAgentProcess({ control: api.url, enrollmentKey: (await api.post('/v1/enrollment-keys', {})).body.key, dataDir: agentDir });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await api.post('/v1/projects', { name: 'crash' });
    const first = await api.finished((await api.post('/v1/projects/crash/deploy', { env: 'main', compose: appCompose({ run, env: 'main', version: 'v1' }) })).body.deployment.id);
    expect(first.status, first.error ?? '').toBe('succeeded');
  }, 120_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
  });

  /** Start the server again with `points` armed, deploy `version`, and restart it after every crash until the deployment ends. */
  async function deployThroughCrashes(points: readonly string[], onceDir: string, version: string): Promise<{ dep: Deployment; crashes: number; longestMs: number }> {
    const env = killPointsEnv(points, onceDir);
    await server.kill('SIGKILL'); // idle: nothing is lost
    server = spawnServer({ dataDir: cpDir, port, env });
    await server.waitForOutput(/listening on/);
    const res = await api.post('/v1/projects/crash/deploy', { env: 'main', compose: appCompose({ run, env: 'main', version }) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.deployment.id as string;
    let crashes = 0;
    let longestMs = 0;
    for (;;) {
      const upAt = Date.now();
      // terminalOrExit fails the test if neither happens within 60 s of this server starting.
      const outcome = await terminalOrExit(api, id, server, TERMINAL_WITHIN_MS);
      longestMs = Math.max(longestMs, Date.now() - upAt);
      if (outcome !== 'exited') return { dep: outcome, crashes, longestMs };
      await exitOf(server);
      crashes++;
      expect(server.output(), 'the server exited, but not at a crash point').toMatch(/kill point \S+: SIGKILL/);
      expect(crashes, `crash points fired: ${firedPoints(onceDir).join(', ')}`).toBeLessThanOrEqual(points.length);
      server = spawnServer({ dataDir: cpDir, port, env });
    }
  }

  async function expectOneCleanVersion(dep: Deployment, version: string, deploymentsSoFar: number): Promise<void> {
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(dep.phases.map((p) => p.status).every((s) => s === 'ok' || s === 'skipped')).toBe(true);
    // One version's processes run for the env: the new one, once.
    await waitFor(() => versionsRunning(run, 'main').join() === version, 10_000, `only ${version} to run (running: ${versionsRunning(run, 'main').join(', ')})`);
    const env = (await api.get(`/v1/envs/${dep.env}`)).body;
    expect(await (await fetch(env.endpoints[0].url)).text()).toMatch(new RegExp(`^${version} `));
    // Nothing applied twice on the host, nothing recorded twice here.
    expect(appliedTwice(agentDir)).toEqual([]);
    const creates = deliveries(agentDir).filter((d) => d.kind === 'env.create' && (d.source === 'ran' || d.source === 'resumed'));
    expect(creates).toHaveLength(deploymentsSoFar);
    expect(await lifecycleEvents(api, dep.id)).toEqual({ started: 1, finished: 1 });
  }

  it('at the start of every phase: each crash is followed by progress within 60 s, and the deploy succeeds once', async () => {
    const onceDir = join(dir, 'fired-start');
    const { dep, crashes, longestMs } = await deployThroughCrashes(START_POINTS, onceDir, 'v2');
    expect(firedPoints(onceDir)).toEqual([...START_POINTS].sort());
    expect(crashes).toBe(START_POINTS.length);
    expect(longestMs).toBeLessThan(TERMINAL_WITHIN_MS);
    await expectOneCleanVersion(dep, 'v2', 2);
  }, 400_000);

  it('at the end of the phases with effects and before an agent result is stored: the result is delivered again, the deploy succeeds once', async () => {
    const onceDir = join(dir, 'fired-end');
    const { dep, crashes, longestMs } = await deployThroughCrashes(END_POINTS, onceDir, 'v3');
    expect(firedPoints(onceDir)).toEqual([...END_POINTS].sort());
    expect(crashes).toBe(END_POINTS.length);
    expect(longestMs).toBeLessThan(TERMINAL_WITHIN_MS);
    await expectOneCleanVersion(dep, 'v3', 3);
  }, 400_000);

  it('between writing a command to the agent and recording the send: the env still records cmd_sent once for it', async () => {
    const onceDir = join(dir, 'fired-sent');
    const createsBefore = deliveries(agentDir).filter((d) => d.kind === 'env.create' && (d.source === 'ran' || d.source === 'resumed')).length;
    const { dep, crashes } = await deployThroughCrashes(['sent:env.create'], onceDir, 'v4');
    expect(crashes).toBe(1);
    await expectOneCleanVersion(dep, 'v4', createsBefore + 1);
    // Recorded by the restarted control plane: at its re-send, or with the result when the
    // agent's kept result arrived first (data.recorded says so). Either way once.
    const events = (await api.get(`/v1/events?subject=env:${dep.env}&limit=1000`)).body.items as { type: string; data: { kind: string; deployment: string } }[];
    const sent = events.filter((e) => e.type === 'cmd_sent' && e.data.deployment === dep.id && e.data.kind === 'env.create');
    expect(sent).toHaveLength(1);
  }, 200_000);
});
