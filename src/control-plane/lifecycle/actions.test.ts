/**
 * performAction in-process on a fresh embedded store, with envs put in each status directly: the
 * refusals name the action, the env, its status and what is allowed; each action leaves the event
 * it promises; a start keeps the env's pending deployments while every other action supersedes
 * them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvStatus } from '../../contracts/domain.js';
import { isDenvError } from '../../contracts/errors.js';
import { createDeployment } from '../operations/create-deployment.js';
import { openStore, type OpenedStore } from '../store/open-store.js';
import { performAction } from './actions.js';
import { freshDataDir, seedPGlite } from '../../../test/helpers/stores.js';

const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => (isDenvError(err) ? `${err.code}: ${err.message}` : String(err)));

describe('performAction', () => {
  let store: OpenedStore;
  let n = 0;
  beforeAll(async () => {
    const dataDir = freshDataDir();
    seedPGlite(dataDir);
    store = await openStore({ dataDir });
    await store.db.query("insert into teams (id, name) values ('team_a', 'a'), ('team_b', 'b')");
    await store.db.query("insert into projects (id, team, name) values ('prj_a', 'team_a', 'shop')");
  });
  afterAll(async () => {
    await store.close();
  });

  /** An env of team a in `status`. */
  const envIn = async (status: EnvStatus): Promise<string> => {
    const id = `env_t${++n}`;
    await store.db.query("insert into envs (id, team, project, name, stage, status) values ($1, 'team_a', 'prj_a', $2, 'preview', $3)", [id, `e${n}`, status]);
    return id;
  };
  const act = (team: string, env: string, action: Parameters<typeof performAction>[3], opts?: { guidance?: string }) =>
    store.db.tx((tx) => performAction(tx, team, env, action, opts));
  const events = async (env: string) =>
    (await store.db.query<{ type: string; data: unknown }>('select type, data from events where subject = $1 order by id', [`env:${env}`])).map((e) => ({ type: e.type, data: e.data }));

  it('refuses with the action, the env, its status and the actions allowed now', async () => {
    const running = await envIn('running');
    expect(await refusal(act('team_a', running, 'delete_record'))).toBe(`INVALID_TRANSITION: cannot delete record env e${n} (${running}): it is running; allowed now: replan, stop, teardown, separate`);
    const gone = await envIn('torn_down');
    expect(await refusal(act('team_a', gone, 'start'))).toBe(`INVALID_TRANSITION: cannot start env e${n} (${gone}): it is torn_down; allowed now: delete_record`);
    expect(await refusal(act('team_a', 'env_nope', 'stop'))).toBe('NOT_FOUND: env "env_nope" not found');
    expect(await refusal(act('team_b', running, 'stop'))).toBe(`NOT_FOUND: env "${running}" not found`);
    expect(await events(running)).toEqual([]);
  });

  it('refuses to approve when no plan awaits approval', async () => {
    const waiting = await envIn('awaiting_approval');
    expect(await refusal(act('team_a', waiting, 'approve'))).toBe(`INVALID_TRANSITION: env e${n} has no plan awaiting approval`);
  });

  it('records a replan with its guidance, or null without', async () => {
    const guided = await envIn('failed');
    const plain = await envIn('running');
    expect((await act('team_a', guided, 'replan', { guidance: 'use two replicas' })).env.status).toBe('planning');
    await act('team_a', plain, 'replan');
    expect(await events(guided)).toEqual([{ type: 'replan_requested', data: { guidance: 'use two replicas' } }]);
    expect(await events(plain)).toEqual([{ type: 'replan_requested', data: { guidance: null } }]);
  });

  it('deletes the record of a torn-down env and says so', async () => {
    const gone = await envIn('torn_down');
    const { env } = await act('team_a', gone, 'delete_record');
    expect(env.id).toBe(gone);
    expect(await store.db.query('select 1 from envs where id = $1', [gone])).toEqual([]);
    expect(await events(gone)).toEqual([{ type: 'record_deleted', data: {} }]);
  });

  it('starts without superseding the pending work, and stops superseding it; each names its deployment and where it came from', async () => {
    const stopped = await envIn('stopped');
    const waiting = await createDeployment(store.db, { team: 'team_a', env: stopped, kind: 'deploy', params: {} });
    const started = await act('team_a', stopped, 'start');
    expect(started.env.status).toBe('deploying');
    expect((await store.db.query<{ status: string }>('select status from deployments where id = $1', [waiting.id]))[0]!.status).toBe('pending');
    const stopping = await act('team_a', stopped, 'stop');
    const statuses = await store.db.query<{ id: string; status: string; error: string | null }>('select id, status, error from deployments where env = $1 order by created_at, id', [stopped]);
    expect(statuses.find((d) => d.id === waiting.id)).toMatchObject({ status: 'failed', error: 'verdict: not applied: superseded by stop' });
    expect(statuses.find((d) => d.id === stopping.deployment!.id)).toMatchObject({ status: 'pending' });
    const requested = (await events(stopped)).filter((e) => e.type.endsWith('_requested'));
    expect(requested).toEqual([
      { type: 'start_requested', data: { deployment: started.deployment!.id, from: 'stopped' } },
      { type: 'stop_requested', data: { deployment: stopping.deployment!.id, from: 'deploying' } },
    ]);
  });
});
