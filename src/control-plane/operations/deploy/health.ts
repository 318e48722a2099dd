import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Derived from the env.create result: did every service pass its health check? */
export const health: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const create = stateOf(ctx.state).create!;
    if (create.outcome === 'unhealthy') {
      throw new PhaseFailed(create.message ?? 'a service failed its health check', { endpoints: create.endpoints, services: create.services });
    }
    return ok({ endpoints: create.endpoints, healthy_in_ms: create.healthy_in_ms });
  },
};
