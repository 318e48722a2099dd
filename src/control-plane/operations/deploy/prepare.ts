import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';
import { paramsOf, stateOf } from './state.js';

/** Send env.create: the agent prepares datasets, starts the version's services on fresh ports
 *  beside any running version, waits for health and probes egress. Whether the services started
 *  and became healthy is judged by the next two phases from the stored result. */
export const prepare: PhaseDef = {
  name: 'prepare',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const { spec } = paramsOf(ctx.deployment.params);
    const host = await connectedHost(ctx, state.host, 'prepare');
    const result = await ctx.call(host, 'env.create', {
      env: ctx.deployment.env,
      version: state.version!,
      services: { ...spec.services },
      volumes: [...spec.volumes],
      retire_others: false,
    });
    state.create = result;
    if (!result) throw new PhaseFailed('agent returned no result');
    return ok({ version: state.version, endpoints: result.endpoints, datasets: result.datasets, egress: result.egress, outcome: result.outcome });
  },
};
