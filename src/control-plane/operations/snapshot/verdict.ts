import type { PhaseDef } from '../phase.js';
import { tookMs } from '../versions.js';
import { stateOf } from './state.js';

/** Success: the new version is healthy and becomes current. Failure: nothing changes; the
 *  previous current version is kept (the new version row stays, not healthy). */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (ctx.failure) return { status: 'ok', evidence: { kept: state.previous_version ?? null, took_ms: tookMs(ctx) }, outcome: 'failed' };
    await ctx.db.tx(async (tx) => {
      await tx.query('update versions set healthy = true where id = $1', [state.version]);
      await tx.query('update envs set current_version = $2, updated_at = now() where id = $1', [ctx.deployment.env, state.version]);
    });
    return { status: 'ok', evidence: { version: state.version, snapshot: state.snapshot, took_ms: tookMs(ctx) }, outcome: 'succeeded' };
  },
};
