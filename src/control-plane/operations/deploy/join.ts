import { skipped, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Wait for a provisioned host to connect. Skipped when a host was placed (the only path today:
 *  without a cloud, provision fails first). */
export const join: PhaseDef = {
  name: 'join',
  async run(ctx) {
    return skipped({ reason: stateOf(ctx.state).host ? 'host already placed' : 'nothing provisioned' });
  },
};
