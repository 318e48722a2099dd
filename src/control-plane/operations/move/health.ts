import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { publicEndpoints } from '../versions.js';
import { stateOf } from './state.js';

/** Derived from the start on the new host: did every service pass its health check there? */
export const health: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const res = stateOf(ctx.state).started!;
    if (res.outcome !== 'healthy') throw new PhaseFailed(res.message ?? 'a service failed its health check', { endpoints: publicEndpoints(res), services: res.services });
    return ok({ endpoints: publicEndpoints(res), healthy_in_ms: res.healthy_in_ms });
  },
};
