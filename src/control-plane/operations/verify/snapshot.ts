import { ok, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/**
 * A consistent snapshot of the env's datasets named after the capture version, which is then
 * healthy (so it can be forked like any snapshot). The agent service stays paused through it
 * (held by collect); with `resume: true` it is let go right after, the capture being complete.
 */
export const snapshot: PhaseDef = {
  name: 'snapshot',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const version = (await loadVersion(ctx.db, state.version!))!;
    const res = await ctx.call(state.host!, 'env.snapshot', { env: ctx.deployment.env, name: state.capture!, volumes: [...version.spec.volumes] });
    await ctx.db.query('update versions set snapshot = $2, healthy = true where id = $1', [state.capture, res.snapshot]);
    if (paramsOf(ctx.deployment.params).resume && !state.resumed) {
      await ctx.call(state.host!, 'env.resume', { env: ctx.deployment.env, service: state.agent_service! }, 'resume');
      state.resumed = true;
    }
    return ok({ snapshot: res.snapshot, datasets: res.datasets, frozen_for: res.frozen_for, consistent: res.consistent, agent_paused: !state.resumed });
  },
};
