/**
 * proxy (seed 004, stage 8): upsert the service's hostnames in the reverse proxy. Best effort: a
 * failure leaves the healthy container running and makes the result `success_degraded`. The
 * provider is `none` until the edge lands, so the stage reports `skipped` with that provider.
 */
import { skipped, type Stage } from '../stage.js';

export const proxy: Stage = {
  name: 'proxy',
  onFailure: 'degrade',
  async run({ host, state }) {
    const hostnames = state.target?.hostnames ?? [];
    state.edge = { ...state.edge, proxy: { provider: host.edge.proxy, status: 'skipped' }, hostnames };
    return skipped(`provider ${host.edge.proxy}: no reverse proxy is configured on this host`, { provider: host.edge.proxy, hostnames });
  },
};
