/**
 * ingress (seed 000 phase 10, DESIGN §8): the new version's routes and DNS names, through the
 * team's providers, from the env's host (control-plane/edge/). It runs after health and warm, so
 * a broken version never reaches the public; the proxy's upstream moves to the new version's port
 * in one write while the old version still runs (verdict drains and stops it).
 *
 * Best effort: a proxy or DNS failure never fails the deploy (the version is healthy). The phase
 * is `ok` with `degraded: true` and the providers' errors, the env's edge record says `degraded`,
 * and the edge sweep retries. Skipped, with the reason, when no service has `x-denv.edge`, none
 * gets a name (no base domain outside production), or the team has no provider.
 *
 * Evidence: {endpoints, names, proxy, dns} — endpoints with `public` URLs, the hostnames, and
 * what each provider did (status, endpoint, per route or name the change, the error).
 */
import { putOnEdge } from '../edge-phase.js';
import { ok, skipped, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf, type IngressState } from './state.js';

export const ingress: PhaseDef = {
  name: 'ingress',
  async run(ctx) {
    const { spec } = paramsOf(ctx.deployment.params);
    const state = stateOf(ctx.state);
    const create = state.create!;
    const { sync, endpoints } = await putOnEdge(ctx, await ctx.env(), state.host!, spec.services, create.endpoints);
    const desired = sync.desired;
    if (!sync.result) return skipped({ reason: sync.reason, endpoints, names: desired.names, skipped: desired.skipped });
    ctx.state.ingress = { desired, result: sync.result } satisfies IngressState;
    const degraded = sync.record?.status === 'degraded';
    return ok({ endpoints, names: desired.names, proxy: sync.result.proxy, dns: sync.result.dns, degraded, ...(desired.skipped.length > 0 ? { skipped: desired.skipped } : {}) });
  },
};
