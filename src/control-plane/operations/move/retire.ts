import { connectedHost } from '../host-link.js';
import { ok, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** The old host lets the env go: env.destroy stops its processes and deletes its datasets,
 *  snapshots and ports there, so the env never runs twice. Evidence: {host, removed}. */
export const retire: PhaseDef = {
  name: 'retire',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const from = await connectedHost(ctx, state.from, 'retire');
    const res = await ctx.call(from, 'env.destroy', { env: ctx.deployment.env }, 'retire');
    return ok({ host: from, removed: res.removed });
  },
};
