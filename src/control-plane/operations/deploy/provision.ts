import { isDenvError } from '../../../contracts/errors.js';
import { PhaseFailed, ok, skipped, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf } from './state.js';

/** Get a machine from a cloud when no host was placed (seed 000): the requested cloud, else the
 *  team's first cloud that can provision; without one, seed 000's message. Appends
 *  `host.provisioned`. Resumed after a crash, it finds the machine it recorded (clouds.ts). */
export const provision: PhaseDef = {
  name: 'provision',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (state.host) return skipped({ reason: 'host already placed' });
    const { target } = paramsOf(ctx.deployment.params);
    try {
      const made = await ctx.clouds.provision(ctx.deployment.team, ctx.deployment.id, target?.cloud ?? null);
      state.machine = made.machine;
      return ok({ cloud: made.cloud, provider: made.provider, ref: made.ref, ip: made.ip, name: made.name });
    } catch (err) {
      if (!isDenvError(err)) throw err;
      throw new PhaseFailed(err.message, { cloud: target?.cloud ?? null, provider: null, ref: null, ip: null, name: null });
    }
  },
};
