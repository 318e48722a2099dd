import { connectedHost } from '../../../operations/host-link.js';
import { ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import { envPlanRefs } from '../cluster-plans.js';

/** teardown on a cluster (seed 002): the agent deletes exactly the objects the env's plans named, in
 *  the plan's namespace — nothing else there, whatever its labels. */
export const clusterTeardown: PhaseDef = {
  name: 'teardown',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) return skipped({ reason: 'no cluster chosen; nothing applied' });
    const refs = await envPlanRefs(ctx.db, env.id);
    if (refs.length === 0) return skipped({ reason: 'no plan was approved; nothing applied' });
    const host = await connectedHost(ctx, env.host, 'teardown');
    const res = await ctx.call(host, 'kube.delete', { env: env.id, refs, forget: true });
    return ok({ host, deleted: res.deleted, absent: res.absent, ...(res.kept?.length ? { kept: res.kept } : {}) });
  },
};
