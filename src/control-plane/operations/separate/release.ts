import { ok, skipped, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';

/** env.release on the host: the agent stops managing the env and refuses later commands for it;
 *  the workload keeps running. */
export const release: PhaseDef = {
  name: 'release',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) return skipped({ reason: 'nothing placed on a host' });
    const host = await connectedHost(ctx, env.host, 'release');
    const res = await ctx.call(host, 'env.release', { env: env.id });
    return ok({ host, left_running: res.left_running });
  },
};
