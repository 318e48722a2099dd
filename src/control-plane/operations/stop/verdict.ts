import type { PhaseDef } from '../phase.js';

/** Records the outcome; the env becomes `stopped` (env-status.ts) or `failed` with the error. */
export const stopVerdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    if (ctx.failure) return { status: 'ok', evidence: { stopped: false }, outcome: 'failed' };
    return { status: 'ok', evidence: { stopped: true, version: (await ctx.env()).current_version }, outcome: 'succeeded' };
  },
};
