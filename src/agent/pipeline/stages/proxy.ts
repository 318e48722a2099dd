/**
 * proxy (seed 004, stage 8): route the envelope's `edge.hostnames` to the healthy service, through
 * the proxy agent.yaml configures (`edge.proxy`) and the host's edge relay (a new version is a
 * relay switch: no proxy reload). Best effort: a failure leaves the healthy container running and
 * makes the result `success_degraded`; an idempotent re-run converges.
 *
 * Skipped, with the reason: control-plane deploys (the deploy's `ingress` phase puts them on the
 * team's edge), an envelope without hostnames, a host without a proxy.
 */
import { openProxyProvider } from '../../../edge/open-providers.js';
import { edgeErrorOf, routeService } from '../../edge/edge-calls.js';
import { failed, ok, skipped, type Stage } from '../stage.js';
import { edgeSkipReason, standaloneRouteId } from './edge-target.js';

export const proxy: Stage = {
  name: 'proxy',
  onFailure: 'degrade',
  async run({ host, req, state }) {
    const hostnames = state.target?.hostnames ?? [];
    const provider = host.edge.proxy?.provider ?? 'none';
    const record = (status: 'ok' | 'skipped' | 'failed') => (state.edge = { ...state.edge, proxy: { provider, status }, hostnames });
    const skip = edgeSkipReason(req, hostnames, host.edge.proxy, 'reverse proxy', 'edge.proxy');
    if (skip !== null) {
      record('skipped');
      return skipped(skip, { provider, hostnames });
    }
    const route = { id: standaloneRouteId(req.slot.service), hostnames, tls: host.edge.tls, port: state.port! };
    try {
      const routed = await routeService(openProxyProvider(host.edge.proxy!, host.edge.proxyBind ? { caddyBindHost: host.edge.proxyBind } : {}), host.edge.relay, route);
      record('ok');
      return ok(`${hostnames.join(', ')} → 127.0.0.1:${routed.listen} (relay) → 127.0.0.1:${route.port}`, { provider, hostnames, route: route.id, action: routed.change.action, relay_port: routed.listen, switched: routed.switched });
    } catch (err) {
      record('failed');
      const error = edgeErrorOf(err);
      return failed(error.message, { provider, hostnames, reason: error.reason, retryable: error.retryable });
    }
  },
};
