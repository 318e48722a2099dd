/**
 * Fault: the PostgreSQL server restarts under two control-plane replicas while deployments are
 * in flight (issue 11, item 1). A private PostgreSQL (test/helpers/private-postgres.ts), two
 * control planes sharing it (in this process: an unhandled error would end the test worker), one
 * real agent connected to the first. Three envs are upgraded at once through both replicas; the
 * database goes down while the agent runs their env.create commands, and the agent's results
 * arrive during the outage — the replica holding its socket cannot store them, so it does not
 * acknowledge them, and the agent sends them again. After the database is back, every deployment
 * is terminal within 60 s, succeeded, only the new version runs in each env, and nothing was
 * applied or recorded twice.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { appCompose, appliedTwice, deliveries, lifecycleEvents, TERMINAL_WITHIN_MS, versionsRunning } from '../helpers/faults.js';
import { FAST_TIMINGS, killServiceProcesses } from '../helpers/harness.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { startAgentProcess, type Child } from '../helpers/processes.js';
import { freshDataDir } from '../helpers/stores.js';

const ENVS = ['e1', 'e2', 'e3'];
const count = (text: string, re: RegExp) => text.match(new RegExp(re.source, 'g'))?.length ?? 0;

describe('the database server restarts under two replicas with deployments in flight', () => {
  const dir = freshDataDir('denv-fault-pg-');
  const agentDir = join(dir, 'agent');
  const run = `pgrestart-${process.pid}-${Date.now()}`;
  let pg: PrivatePostgres;
  let a: ControlPlane;
  let b: ControlPlane;
  let agent: Child;
  let apis: Api[];

  beforeAll(async () => {
    pg = await PrivatePostgres.create();
    // The phase timeout is 10 min: a deployment that waited for it would fail the 60 s bound.
    const opts = { port: 0, databaseUrl: pg.url, ...FAST_TIMINGS, commandTimeoutMs: 600_000, log: () => {} };
    a = await startControlPlane({ ...opts, dataDir: join(dir, 'a') });
    b = await startControlPlane({ ...opts, dataDir: join(dir, 'b') });
    apis = [new Api(a.url, a.adminToken), new Api(b.url, b.adminToken)];
    agent = startAgentProcess({ control: a.url, enrollmentKey: await a.createEnrollmentKey(), dataDir: agentDir });
    await waitFor(async () => (await apis[1]!.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await apis[0]!.post('/v1/projects', { name: 'shared' });
  }, 120_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
    if (pg && !pg.running) await pg.start().catch(() => {});
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  const deployAll = (version: string, environment: Record<string, string> = {}) =>
    Promise.all(
      ENVS.map(async (env, i) => {
        const res = await apis[i % 2]!.post('/v1/projects/shared/deploy', { env, compose: appCompose({ run, env, version, environment }) });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        return res.body.deployment.id as string;
      }),
    );

  it('every deployment ends within 60 s of the database being back, each env runs its new version once', async () => {
    for (const id of await deployAll('v1')) expect((await apis[0]!.finished(id)).status).toBe('succeeded');
    const before = count(agent.output(), /env\.create finished/);

    const ids = await deployAll('v2', { STARTUP_DELAY_MS: '1500' });
    await waitFor(() => count(agent.output(), /env\.create started/) >= before + ENVS.length, 30_000, 'the three env.create commands to run on the agent');
    await pg.stop();
    // The agent finishes them while the database is down: their results reach a replica that cannot store them.
    await waitFor(() => count(agent.output(), /env\.create finished/) >= before + ENVS.length, 30_000, 'the agent to finish the three env.create commands');
    await pg.start();
    const upAt = Date.now();

    for (const [i, id] of ids.entries()) {
      const dep = await apis[i % 2]!.finished(id, Math.max(1000, TERMINAL_WITHIN_MS - (Date.now() - upAt)));
      expect(dep.status, dep.error ?? '').toBe('succeeded');
      expect(await lifecycleEvents(apis[0]!, id)).toEqual({ started: 1, finished: 1 });
    }
    expect(Date.now() - upAt).toBeLessThan(TERMINAL_WITHIN_MS);
    for (const env of ENVS) await waitFor(() => versionsRunning(run, env).join() === 'v2', 10_000, `only v2 to run in ${env} (running: ${versionsRunning(run, env).join(', ')})`);
    expect(appliedTwice(agentDir)).toEqual([]);
    expect(deliveries(agentDir).filter((d) => d.kind === 'env.create' && d.source === 'ran')).toHaveLength(2 * ENVS.length);
  }, 150_000);
});
