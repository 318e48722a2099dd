/**
 * dns (seed 004, stage 9): upsert the A records of the service's hostnames. Best effort, like
 * proxy; the provider is `none` until the edge lands, so the stage reports `skipped`.
 */
import { skipped, type Stage } from '../stage.js';

export const dns: Stage = {
  name: 'dns',
  onFailure: 'degrade',
  async run({ host, state }) {
    const hostnames = state.target?.hostnames ?? [];
    state.edge = { ...state.edge, dns: { provider: host.edge.dns, status: 'skipped' }, hostnames };
    return skipped(`provider ${host.edge.dns}: no DNS provider is configured on this host`, { provider: host.edge.dns, hostnames });
  },
};
