import type { PhaseDef } from '../phase.js';
import { tookMs } from '../versions.js';

/** Records the outcome; the env's status (torn_down, or failed when teardown failed) is set by
 *  env-status.ts. On success the env no longer lists endpoints. */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    if (ctx.failure) return { status: 'ok', evidence: { took_ms: tookMs(ctx) }, outcome: 'failed' };
    await ctx.db.query("update envs set endpoints = '[]', updated_at = now() where id = $1", [ctx.deployment.env]);
    return { status: 'ok', evidence: { took_ms: tookMs(ctx) }, outcome: 'succeeded' };
  },
};
