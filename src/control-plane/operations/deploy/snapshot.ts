import { ok, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';
import { paramsOf, stateOf } from './state.js';

/** env.snapshot named after the version id: services paused, every dataset copied, resumed. */
export const snapshot: PhaseDef = {
  name: 'snapshot',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const { spec } = paramsOf(ctx.deployment.params);
    const host = await connectedHost(ctx, state.host, 'snapshot');
    const res = await ctx.call(host, 'env.snapshot', { env: ctx.deployment.env, name: state.version!, volumes: [...spec.volumes] });
    state.snapshot = res.snapshot;
    await ctx.db.query('update versions set snapshot = $2 where id = $1', [state.version, res.snapshot]);
    return ok({ snapshot: res.snapshot, datasets: res.datasets, frozen_for: res.frozen_for, consistent: res.consistent });
  },
};
