/**
 * What a pending deployment waits for: the words (waitingFor, pure) for each reason the engine's
 * claim passes a deployment over, and the facts read for them (waitingReasons) on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KIND_PHASES } from '../../contracts/domain.js';
import { deploymentRows } from '../../cli/commands/deployments.js';
import { formatDeploymentDetail } from '../../cli/format-deployment.js';
import { openStore, type OpenedStore } from '../store/open-store.js';
import { waitingFor, waitingReasons, type WaitFacts } from './waiting.js';
import { freshDataDir, storeOptions, STORES } from '../../../test/helpers/stores.js';

const DEPLOY_PHASES = [...KIND_PHASES.deploy];
const facts = (o: Partial<WaitFacts> = {}): WaitFacts => ({
  kind: 'deploy', phases: DEPLOY_PHASES, target: 'host', envRef: 'shop/prod', envStatus: 'deploying', blocker: null, lease: null, ...o,
});

describe('waitingFor', () => {
  it('names each reason the claim passes a deployment over, the first that holds', () => {
    expect(waitingFor(facts({ phases: [...DEPLOY_PHASES, 'teleport'] }))).toBe('a control plane that runs phase teleport of deploy on host (none here does: a newer denv version made it?)');
    expect(waitingFor(facts({ kind: 'hover' as never, phases: [] }))).toBe('a control plane that runs hover deployments on host (none here does: a newer denv version made it?)');
    const blocker = { id: 'dep_older', kind: 'fork', status: 'running' };
    expect(waitingFor(facts({ blocker, envStatus: 'awaiting_approval' }))).toBe('dep_older (fork, running) to end: an env runs one deployment at a time');
    expect(waitingFor(facts({ envStatus: 'awaiting_approval' }))).toBe("approval of env shop/prod's plan (denv env approve shop/prod)");
    expect(waitingFor(facts({ envStatus: 'planning' }))).toBe("env shop/prod's plan to be made");
    expect(waitingFor(facts({ kind: 'stop', phases: [...KIND_PHASES.stop], envStatus: 'running' }))).toBe('env shop/prod to be stopping (it is running)');
    // Kinds the lifecycle does not gate run whatever the env's status.
    expect(waitingFor(facts({ kind: 'snapshot', phases: [...KIND_PHASES.snapshot], envStatus: 'running' }))).toBe('the engine to claim it (its next sweep)');
    expect(waitingFor(facts({ lease: { owner: 'cp_other', until: '2026-12-06T12:00:00.000Z' } }))).toBe('control plane cp_other, which holds it until 2026-12-06T12:00:00.000Z');
    expect(waitingFor(facts())).toBe('the engine to claim it (its next sweep)');
  });

  it('the CLI shows it: in the list where an error would be, and as a field of `deployment show`', () => {
    const d = { id: 'dep_b', kind: 'deploy', env: 'env_1', status: 'pending', error: null, created_at: '2026-12-06T12:00:00.000Z', finished_at: null, phases: [], waiting: 'dep_a (deploy, running) to end' } as const;
    expect(deploymentRows([d], Date.parse(d.created_at))[0]!.at(-1)).toBe('waiting for dep_a (deploy, running) to end');
    expect(formatDeploymentDetail(d)).toMatch(/waiting for:\s+dep_a \(deploy, running\) to end/);
    expect(deploymentRows([{ ...d, status: 'failed', error: 'health: failed', waiting: undefined }], 0)[0]!.at(-1)).toBe('health: failed');
  });
});

describe.each(STORES)('waitingReasons on %s', (storeKind) => {
  let store: OpenedStore;
  beforeAll(async () => {
    store = await openStore(await storeOptions(storeKind, freshDataDir()));
    const q = (sql: string, params: unknown[] = []) => store.db.query(sql, params);
    await q("insert into teams (id, name) values ('team_w', 'w')");
    await q("insert into projects (id, team, name) values ('prj_w', 'team_w', 'shop')");
    for (const [id, name, status] of [['env_a', 'a', 'deploying'], ['env_g', 'g', 'awaiting_approval']]) {
      await q("insert into envs (id, team, project, name, stage, status) values ($1, 'team_w', 'prj_w', $2, 'preview', $3)", [id, name, status]);
    }
    const phases = (names: readonly string[]) => JSON.stringify(names.map((name) => ({ name, status: 'pending', evidence: null, started_at: null, finished_at: null })));
    const dep = (id: string, env: string, kind: string, status: string, names: readonly string[] = KIND_PHASES[kind as 'deploy']) =>
      q("insert into deployments (id, team, env, kind, status, phases) values ($1, 'team_w', $2, $3, $4, $5)", [id, env, kind, status, phases(names)]);
    await dep('dep_1', 'env_a', 'snapshot', 'running');
    await dep('dep_2', 'env_a', 'deploy', 'pending'); // behind dep_1
    await dep('dep_3', 'env_g', 'deploy', 'pending'); // its env awaits approval
    await dep('dep_4', 'env_g', 'verify', 'pending', [...KIND_PHASES.verify, 'teleport']); // a phase unknown here, and behind dep_3
    await dep('dep_5', 'env_a', 'deploy', 'succeeded');
    await q("update deployments set lease_owner = 'cp_else', lease_until = now() + interval '1 minute' where id = 'dep_3'");
  });
  afterAll(async () => {
    await store?.close();
  });

  it('reads what each pending deployment waits for in one statement, and leaves out the rest', async () => {
    const reasons = await waitingReasons(store.db, ['dep_1', 'dep_2', 'dep_3', 'dep_4', 'dep_5', 'dep_missing']);
    expect(Object.fromEntries(reasons)).toEqual({
      dep_2: 'dep_1 (snapshot, running) to end: an env runs one deployment at a time',
      dep_3: "approval of env shop/g's plan (denv env approve shop/g)",
      dep_4: 'a control plane that runs phase teleport of verify on host (none here does: a newer denv version made it?)',
    });
    await store.db.query("update envs set status = 'deploying' where id = 'env_g'");
    expect((await waitingReasons(store.db, ['dep_3'])).get('dep_3')).toMatch(/^control plane cp_else, which holds it until \d{4}-\d\d-\d\dT/);
    await store.db.query("update deployments set lease_until = now() - interval '1 second' where id = 'dep_3'");
    expect((await waitingReasons(store.db, ['dep_3'])).get('dep_3')).toBe('the engine to claim it (its next sweep)');
    expect(await waitingReasons(store.db, [])).toEqual(new Map());
  });
});
