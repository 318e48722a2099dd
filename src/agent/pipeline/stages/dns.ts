/**
 * dns (seed 004, stage 9): publish the envelope's `edge.hostnames` as this host's public address
 * (agent.yaml `public_ip`, else detected), through the DNS provider agent.yaml configures
 * (`edge.dns`). Best effort, like proxy; skipped for the same reasons.
 */
import { openDnsProvider } from '../../../edge/open-providers.js';
import { edgeErrorOf, publishNames } from '../../edge/edge-calls.js';
import { failed, ok, skipped, type Stage } from '../stage.js';
import { edgeSkipReason } from './edge-target.js';

export const dns: Stage = {
  name: 'dns',
  onFailure: 'degrade',
  async run({ host, req, state }) {
    const hostnames = state.target?.hostnames ?? [];
    const provider = host.edge.dns?.provider ?? 'none';
    const record = (status: 'ok' | 'skipped' | 'failed') => (state.edge = { ...state.edge, dns: { provider, status }, hostnames });
    const skip = edgeSkipReason(req, hostnames, host.edge.dns, 'DNS provider', 'edge.dns');
    if (skip !== null) {
      record('skipped');
      return skipped(skip, { provider, hostnames });
    }
    try {
      const changes = await publishNames(openDnsProvider(host.edge.dns!), hostnames, host.edge.publicIp);
      record('ok');
      return ok(`${hostnames.join(', ')} → ${host.edge.publicIp.join(', ')}`, { provider, hostnames, addresses: host.edge.publicIp, changes });
    } catch (err) {
      record('failed');
      const error = edgeErrorOf(err);
      return failed(error.message, { provider, hostnames, reason: error.reason, retryable: error.retryable });
    }
  },
};
