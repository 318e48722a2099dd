import type { PhaseDef } from '../phase.js';

/** Records the outcome; the env becomes `running` or `failed` (env-status.ts). */
export const startVerdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const version = (await ctx.env()).current_version;
    return ctx.failure ? { status: 'ok', evidence: { version, started: false }, outcome: 'failed' } : { status: 'ok', evidence: { version, started: true }, outcome: 'succeeded' };
  },
};
