/**
 * onDeploymentFinished on a real store (both): which env status each kind's outcome leaves, from
 * which statuses, and which events it records. The expected statuses and events are written out
 * here (seed 002's outcome statuses), not read from OUTCOMES, so a changed table fails a row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentKind, DeploymentStatus, Phase } from '../../contracts/domain.js';
import { openStore, type OpenedStore } from '../store/open-store.js';
import type { DeploymentRow } from '../store/rows.js';
import { onDeploymentFinished } from './env-status.js';
import { freshDataDir, storeOptions, STORES } from '../../../test/helpers/stores.js';

/** kind, env status before, deployment outcome → env status after, env events recorded, and whether
 *  the outcome applied (the env's last_error then becomes the deployment's error). */
const TABLE: readonly (readonly [DeploymentKind, string, DeploymentStatus, string, readonly string[], boolean])[] = [
  ['deploy', 'deploying', 'succeeded', 'running', ['apply_succeeded'], true],
  ['deploy', 'deploying', 'rolled_back', 'running', ['apply_succeeded'], true],
  ['deploy', 'deploying', 'failed', 'failed', ['apply_failed'], true],
  ['deploy', 'upgrading', 'succeeded', 'running', ['apply_succeeded'], true],
  ['deploy', 'upgrading', 'failed', 'failed', ['apply_failed'], true],
  ['start', 'deploying', 'succeeded', 'running', ['apply_succeeded'], true],
  ['start', 'deploying', 'failed', 'failed', ['apply_failed'], true],
  ['stop', 'stopping', 'succeeded', 'stopped', [], true],
  ['stop', 'stopping', 'failed', 'failed', [], true],
  ['fork', 'deploying', 'succeeded', 'running', [], true],
  ['fork', 'deploying', 'failed', 'failed', [], true],
  ['destroy', 'tearing_down', 'succeeded', 'torn_down', [], true],
  ['destroy', 'tearing_down', 'failed', 'failed', [], true],
  ['rollback', 'failed', 'succeeded', 'running', [], true],
  ['rollback', 'failed', 'failed', 'failed', [], true],
  // Not in the status that dispatched the kind (a stop requested meanwhile wins): untouched, no event.
  ['deploy', 'stopping', 'succeeded', 'stopping', [], false],
  ['start', 'upgrading', 'succeeded', 'upgrading', [], false],
  ['stop', 'running', 'succeeded', 'running', [], false],
  ['fork', 'failed', 'failed', 'failed', [], false],
  ['destroy', 'failed', 'succeeded', 'failed', [], false],
  ['rollback', 'running', 'failed', 'running', [], false],
  // Kinds with no outcome on the env.
  ['snapshot', 'running', 'failed', 'running', [], false],
  ['verify', 'running', 'succeeded', 'running', [], false],
];

describe.each(STORES)('a finished deployment moves its env on %s', (storeKind) => {
  let store: OpenedStore;
  let n = 0;

  // One store for the file's tests (each test has envs of its own).
  beforeAll(async () => {
    store = await openStore(await storeOptions(storeKind, freshDataDir()));
    await store.db.query("insert into teams (id, name) values ('team_s', 's')");
    await store.db.query("insert into projects (id, team, name) values ('prj_s', 'team_s', 'shop')");
  });
  afterAll(async () => {
    await store?.close();
  });

  /** An env in `status` (with a current version when `serving`) and a finished deployment of `kind` in it. */
  async function finishedIn(kind: DeploymentKind, status: string, outcome: DeploymentStatus, o: { serving?: boolean; verdict?: Record<string, unknown> } = {}): Promise<DeploymentRow> {
    const env = `env_${++n}`;
    await store.db.query("insert into envs (id, team, project, name, stage, status) values ($1, 'team_s', 'prj_s', $2, 'preview', $3)", [env, `e${n}`, status]);
    if (o.serving) {
      await store.db.query("insert into versions (id, env, number, spec, healthy) values ($1, $2, 1, '{}', true)", [`ver_${n}`, env]);
      await store.db.query('update envs set current_version = $2 where id = $1', [env, `ver_${n}`]);
    }
    const phases: Phase[] = [{ name: 'verdict', status: 'ok', evidence: o.verdict ?? null, started_at: null, finished_at: null }];
    const error = outcome === 'failed' ? 'health: connection refused' : null;
    await store.db.query("insert into deployments (id, team, env, kind, status, phases, error) values ($1, 'team_s', $2, $3, $4, $5, $6)", [`dep_${n}`, env, kind, outcome, JSON.stringify(phases), error]);
    return { id: `dep_${n}`, team: 'team_s', env, kind, status: outcome, error, phases, params: {}, state: {}, lease_owner: null, lease_until: null, created_at: null, started_at: null, finished_at: null };
  }
  const envOf = async (dep: DeploymentRow) => (await store.db.query<{ status: string; last_error: string | null }>('select status, last_error from envs where id = $1', [dep.env]))[0]!;
  const envEvents = async (dep: DeploymentRow) =>
    (await store.db.query<{ type: string; data: Record<string, unknown> }>('select type, data from events where subject = $1 order by id', [`env:${dep.env}`])).map((e) => ({ type: e.type, data: e.data }));

  it.each(TABLE)('%s from %s, %s: env %s, events %j', async (kind, before, outcome, after, types, applies) => {
    const dep = await finishedIn(kind, before, outcome);
    await onDeploymentFinished(store.db, dep);
    const env = await envOf(dep);
    expect(env.status).toBe(after);
    expect(env.last_error).toBe(applies ? dep.error : null);
    expect(await envEvents(dep)).toEqual(types.map((type) => ({ type, data: { deployment: dep.id, status: outcome, error: dep.error } })));
  });

  it('a deploy refused before any effect (verdict changed: false) leaves an env that has a current version running, one that has none failed', async () => {
    const serving = await finishedIn('deploy', 'upgrading', 'failed', { serving: true, verdict: { changed: false } });
    await onDeploymentFinished(store.db, serving);
    expect(await envOf(serving)).toEqual({ status: 'running', last_error: serving.error });
    expect((await envEvents(serving)).map((e) => e.type)).toEqual(['apply_failed']);

    const first = await finishedIn('deploy', 'deploying', 'failed', { verdict: { changed: false } });
    await onDeploymentFinished(store.db, first);
    expect((await envOf(first)).status).toBe('failed');

    // changed: true (or absent) is an ordinary failure, current version or not.
    const changed = await finishedIn('deploy', 'upgrading', 'failed', { serving: true, verdict: { changed: true } });
    await onDeploymentFinished(store.db, changed);
    expect((await envOf(changed)).status).toBe('failed');
  });

  it('a deploy queued behind the finished one puts the env back in planning; none queued, or a non-deploy queued, leaves it', async () => {
    const dep = await finishedIn('deploy', 'deploying', 'succeeded');
    await store.db.query("insert into deployments (id, team, env, kind, status, phases) values ('dep_queued', 'team_s', $1, 'deploy', 'pending', '[]')", [dep.env]);
    await onDeploymentFinished(store.db, dep);
    expect((await envOf(dep)).status).toBe('planning');

    const alone = await finishedIn('deploy', 'deploying', 'failed');
    await store.db.query("insert into deployments (id, team, env, kind, status, phases) values ('dep_snap', 'team_s', $1, 'snapshot', 'pending', '[]')", [alone.env]);
    await onDeploymentFinished(store.db, alone);
    expect((await envOf(alone)).status).toBe('failed');
  });
});
