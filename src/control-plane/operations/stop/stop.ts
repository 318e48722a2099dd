import { ok, skipped, type PhaseDef } from '../phase.js';
import { removeFromEdge } from '../edge-phase.js';
import { connectedHost } from '../host-link.js';

/** The env taken off the edge (edge-removal.ts), then env.stop on its host: every process stopped, datasets and record kept. */
export const stop: PhaseDef = {
  name: 'stop',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) return skipped({ reason: 'nothing placed on a host yet' });
    const host = await connectedHost(ctx, env.host, 'stop');
    const edge = await removeFromEdge(ctx, env, host);
    const res = await ctx.call(host, 'env.stop', { env: env.id });
    return ok({ host, stopped: res.stopped, ports_released: res.ports, ...(edge ? { edge } : {}) });
  },
};
