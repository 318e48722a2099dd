import { skipped, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf } from './state.js';

/** The edge (proxy and DNS for `x-denv.edge` hostnames) arrives with the edge issue; until then
 *  this phase is skipped and says why. */
export const ingress: PhaseDef = {
  name: 'ingress',
  async run(ctx) {
    const { spec } = paramsOf(ctx.deployment.params);
    const endpoints = stateOf(ctx.state).create?.endpoints ?? [];
    const reason = spec.edge ? 'edge providers are not configured on this control plane yet' : 'no x-denv.edge hostnames';
    return skipped({ reason, endpoints, names: 'pending ingress proxy' });
  },
};
