import type { PhaseDef } from '../phase.js';

/** The env is `separated` from the moment it was asked (terminal); the verdict records whether
 *  the host acknowledged it. */
export const separateVerdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    return { status: 'ok', evidence: { released: !ctx.failure }, outcome: ctx.failure ? 'failed' : 'succeeded' };
  },
};
