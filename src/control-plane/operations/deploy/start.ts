import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Derived from the env.create result: did every service start and stay up? */
export const start: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const create = stateOf(ctx.state).create!;
    if (create.outcome === 'start_failed') {
      throw new PhaseFailed(create.message ?? 'a service did not start', { started_in_ms: create.started_in_ms, services: create.services });
    }
    return ok({ started_in_ms: create.started_in_ms });
  },
};
