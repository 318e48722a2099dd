import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { publicEndpoints } from '../versions.js';
import { stateOf } from './state.js';

/** Derived from the env.rollback result: did the restored version come up healthy? */
export const health: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const res = stateOf(ctx.state).restore!;
    if (res.outcome !== 'healthy') throw new PhaseFailed(res.message ?? `the restored version is ${res.outcome}`, { restored: res.restored, services: res.services });
    return ok({ restored: res.restored, endpoints: publicEndpoints(res) });
  },
};
