import { PhaseFailed, skipped, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Get a machine from a cloud when no host was placed. Clouds arrive in a later issue; until
 *  then a deploy with no connected host fails here with seed 000's message. */
export const provision: PhaseDef = {
  name: 'provision',
  async run(ctx) {
    if (stateOf(ctx.state).host) return skipped({ reason: 'host already placed' });
    throw new PhaseFailed('no connected host and no cloud that can provision: enroll an agent (denv agent --enrollment-key …) or add a cloud', {
      cloud: null, provider: null, ref: null, ip: null, name: null,
    });
  },
};
