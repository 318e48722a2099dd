import { randomBytes } from 'node:crypto';
import { newId } from '../../../contracts/ids.js';
import type { Db } from '../../store/db.js';
import type { EnvRow } from '../../store/rows.js';
import { cloneOnHost } from '../fork/clone-env.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion, publicEndpoints } from '../versions.js';
import { stateOf } from './state.js';

/** The grader env of a capture: found again on a re-run (one per capture), else created —
 *  `<env>-verify-<suffix>`, stage `verify`, forked from the capture, on the same host. */
async function graderEnv(db: Db, source: EnvRow, capture: string): Promise<string> {
  return db.tx(async (tx) => {
    const existing = await tx.query<{ id: string }>("select id from envs where parent_version = $1 and stage = 'verify' order by created_at limit 1", [capture]);
    if (existing[0]) return existing[0].id;
    const rows = await tx.query<{ id: string }>(
      "insert into envs (id, team, project, name, stage, status, parent_version, host) values ($1, $2, $3, $4, 'verify', 'deploying', $5, $6) returning id",
      [newId('env'), source.team, source.project, `${source.name}-verify-${randomBytes(3).toString('hex')}`, capture, source.host],
    );
    return rows[0]!.id;
  });
}

/** The grader: a fork of the capture (its datasets as captured, services on fresh ports), where
 *  the verifier runs. Its own status follows: running once healthy, torn_down at the verdict. */
export const clone: PhaseDef = {
  name: 'clone',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const capture = (await loadVersion(ctx.db, state.capture!))!;
    state.grader_env = await graderEnv(ctx.db, await ctx.env(), capture.id);
    const res = await cloneOnHost(ctx, state.host!, capture, state.grader_env);
    state.clone = res;
    const evidence = { grader_env: state.grader_env, forked_in_ms: res.forked_in_ms, endpoints: publicEndpoints(res) };
    if (res.outcome !== 'healthy') {
      await ctx.db.query("update envs set status = 'failed', last_error = $2, updated_at = now() where id = $1", [state.grader_env, res.message]);
      throw new PhaseFailed(`the grader fork did not come up: ${res.message ?? res.outcome}`, { ...evidence, services: res.services });
    }
    await ctx.db.query("update envs set status = 'running', current_version = $2, endpoints = $3, updated_at = now() where id = $1", [
      state.grader_env, capture.id, JSON.stringify(evidence.endpoints),
    ]);
    return ok(evidence);
  },
};
