import { removeFromEdge } from '../edge-phase.js';
import { ok, skipped, type PhaseDef, type PhaseContext } from '../phase.js';

/** How long teardown waits for a host that is reconnecting before leaving its data in place. */
export const TEARDOWN_RECONNECT_GRACE_MS = 5000;

/** The env's services, ports, datasets, snapshots and collected copies on `host`: `null` when
 *  the host is not reachable now (the env is torn down in the record; the data stays there). */
export async function destroyOnHost(ctx: PhaseContext, host: string | null, env: string, key = 'main') {
  if (!host) return null;
  const reachable = ctx.agents.isConnected(host) || (await ctx.agents.waitConnected(host, Math.min(ctx.config.agentWaitMs, TEARDOWN_RECONNECT_GRACE_MS), ctx.signal));
  if (!reachable) return null;
  return ctx.call(host, 'env.destroy', { env }, key);
}

/**
 * The env's routes and DNS names removed (edge-removal.ts), then env.destroy on the env's host: every process stopped, ports released, datasets, snapshots,
 * logs and state deleted. Skipped when the host is unreachable (the record is torn down anyway;
 * the host keeps the data). Idempotent on the host, so a re-run is harmless.
 */
export const teardown: PhaseDef = {
  name: 'teardown',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) return skipped({ reason: 'no host placed; nothing on a host to tear down' });
    const reachable = ctx.agents.isConnected(env.host) || (await ctx.agents.waitConnected(env.host, Math.min(ctx.config.agentWaitMs, TEARDOWN_RECONNECT_GRACE_MS), ctx.signal));
    const edge = reachable ? await removeFromEdge(ctx, env, env.host) : null;
    const res = await destroyOnHost(ctx, env.host, env.id);
    if (!res) return skipped({ reason: 'host not connected; datasets left in place', host: env.host });
    return ok({ host: env.host, removed: res.removed, ...(edge ? { edge } : {}) });
  },
};
