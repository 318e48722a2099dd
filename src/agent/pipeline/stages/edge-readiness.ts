/**
 * preflight proxy and dns: is the provider agent.yaml configures ready to take this service's
 * hostnames? `readiness()` changes nothing on the provider and never throws (docs/edge.md), so a
 * preflight stays without effect. Skipped for the same reasons as the deploy's stages.
 */
import { openDnsProvider, openProxyProvider } from '../../../edge/open-providers.js';
import type { Readiness } from '../../../edge/readiness.js';
import { failed, ok, skipped, type Stage, type StageOutcome } from '../stage.js';
import { edgeSkipReason } from './edge-target.js';

const answer = (r: Readiness, hostnames: readonly string[]): StageOutcome =>
  (r.ready ? ok : failed)(`${r.endpoint}: ${r.detail}`, { provider: r.provider, hostnames, facts: r.facts });

export const proxyReadiness: Stage = {
  name: 'proxy',
  onFailure: 'fail',
  async run({ host, req, state }) {
    const hostnames = state.target?.hostnames ?? [];
    const skip = edgeSkipReason(req, hostnames, host.edge.proxy, 'reverse proxy', 'edge.proxy');
    if (skip !== null) return skipped(skip, { provider: host.edge.proxy?.provider ?? 'none', hostnames });
    return answer(await openProxyProvider(host.edge.proxy!, host.edge.proxyBind ? { caddyBindHost: host.edge.proxyBind } : {}).readiness(), hostnames);
  },
};

export const dnsReadiness: Stage = {
  name: 'dns',
  onFailure: 'fail',
  async run({ host, req, state }) {
    const hostnames = state.target?.hostnames ?? [];
    const skip = edgeSkipReason(req, hostnames, host.edge.dns, 'DNS provider', 'edge.dns');
    if (skip !== null) return skipped(skip, { provider: host.edge.dns?.provider ?? 'none', hostnames });
    return answer(await openDnsProvider(host.edge.dns!).readiness(), hostnames);
  },
};
