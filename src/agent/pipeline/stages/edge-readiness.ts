/**
 * preflight proxy and dns: is the edge provider ready to take this service's hostnames? With the
 * provider `none` there is nothing to check and the stages report `skipped`.
 */
import { skipped, type Stage } from '../stage.js';

export const proxyReadiness: Stage = {
  name: 'proxy',
  onFailure: 'fail',
  run: async ({ host, state }) => skipped(`provider ${host.edge.proxy}: nothing to check`, { provider: host.edge.proxy, hostnames: state.target?.hostnames ?? [] }),
};

export const dnsReadiness: Stage = {
  name: 'dns',
  onFailure: 'fail',
  run: async ({ host, state }) => skipped(`provider ${host.edge.dns}: nothing to check`, { provider: host.edge.dns, hostnames: state.target?.hostnames ?? [] }),
};
