/**
 * Two control planes on one PostgreSQL server, both running every sweep: leases (FOR UPDATE SKIP
 * LOCKED) split the work, commands reach the agent through whichever replica holds its socket
 * (LISTEN/NOTIFY), and no deployment runs twice — counted from the agent's own command log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.js';
import { Api, waitFor } from './helpers/api.js';
import { FAST_TIMINGS, killServiceProcesses } from './helpers/harness.js';
import { startAgentProcess, type Child } from './helpers/processes.js';
import { freshDataDir, freshPostgresDatabase } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

describe('two control planes on one PostgreSQL server', () => {
  let a: ControlPlane;
  let b: ControlPlane;
  let agent: Child;
  const dir = freshDataDir();
  const agentDir = join(dir, 'agent');
  const allIds: string[] = [];
  beforeAll(async () => {
    const databaseUrl = await freshPostgresDatabase();
    a = await startControlPlane({ port: 0, dataDir: join(dir, 'a'), databaseUrl, ...FAST_TIMINGS, log: () => {} });
    b = await startControlPlane({ port: 0, dataDir: join(dir, 'b'), databaseUrl, ...FAST_TIMINGS, log: () => {} });
    agent = startAgentProcess({ control: a.url, enrollmentKey: await a.createEnrollmentKey(), dataDir: agentDir });
    const api = new Api(b.url, b.adminToken);
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'agent');
  });
  afterAll(async () => {
    await agent?.kill('SIGTERM');
    killServiceProcesses(agentDir);
    await a?.close();
    await b?.close();
  });

  it('never runs a deployment twice, whichever replica takes it', async () => {
    // Which replica claims a deployment is a race; deploy until both have run some (almost always
    // the first round), so commands certainly went to the agent through the replica without its socket.
    const runners = new Set<string>();
    for (let round = 0; round < 5 && runners.size < 2; round++) for (const r of await deployEverywhere(round)) runners.add(r);
    expect([...runners]).toHaveLength(2);
  });

  async function deployEverywhere(round: number): Promise<Set<string>> {
    const apis = [new Api(a.url, a.adminToken), new Api(b.url, b.adminToken)];
    if (round === 0) await apis[0]!.post('/v1/projects', { name: 'shared' });
    const ids: string[] = [];
    // 3 envs × 2 versions, requested alternately through both replicas
    for (let v = 1; v <= 2; v++) {
      const batch = await Promise.all(
        [1, 2, 3].map((e) =>
          apis[(e + v) % 2]!.post('/v1/projects/shared/deploy', {
            env: `e${e}`,
            compose: { services: { web: { command: ['node', APP], environment: { VERSION: `r${round}v${v}` }, 'x-denv': { health: { path: '/healthz' } } } } },
          }).then((r) => (expect(r.status, JSON.stringify(r.body)).toBe(202), r.body.deployment.id as string)),
        ),
      );
      ids.push(...batch);
      for (const id of batch) expect((await apis[0]!.finished(id, 60_000)).status).toBe('succeeded');
    }
    const log = readFileSync(join(agentDir, 'command-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; kind: string; source: string });
    const ran = log.filter((e) => e.source === 'ran');
    expect(new Set(ran.map((e) => e.id)).size).toBe(ran.length); // each command applied once
    allIds.push(...ids);
    expect(ran.filter((e) => e.kind === 'env.create')).toHaveLength(allIds.length); // one env.create per deployment
    const runners = new Set<string>();
    for (const id of ids) {
      const started = (await apis[1]!.get(`/v1/events?subject=dep:${id}`)).body.items.filter((e: { type: string }) => e.type === 'deployment.started');
      expect(started).toHaveLength(1);
      runners.add(started[0].data.control_plane);
    }
    return runners;
  }
});
