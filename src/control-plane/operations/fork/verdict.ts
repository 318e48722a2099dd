import type { PhaseDef } from '../phase.js';
import { publicEndpoints, tookMs } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/** Success: the fork's current version is the source version, with the fork's own endpoints.
 *  Failure: recorded (the fork env ends `failed`; DELETE it to free what the host kept). */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const env = ctx.deployment.env;
    if (ctx.failure) return { status: 'ok', evidence: { env, took_ms: tookMs(ctx) }, outcome: 'failed' };
    const { version } = paramsOf(ctx.deployment.params);
    await ctx.db.query('update envs set current_version = $2, endpoints = $3, last_error = null, updated_at = now() where id = $1', [
      env, version, JSON.stringify(publicEndpoints(stateOf(ctx.state).clone!)),
    ]);
    return { status: 'ok', evidence: { env, took_ms: tookMs(ctx) }, outcome: 'succeeded' };
  },
};
