import type { KubeRef } from '../../../../contracts/kubernetes.js';
import { connectedHost } from '../../../operations/host-link.js';
import { ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import { envPlanRefs, inNamespace } from '../cluster-plans.js';

/** teardown on a cluster (seed 002): the agent deletes exactly the objects the env's plans named, in
 *  the plan's namespace — nothing else there, whatever its labels. Plans made for different
 *  namespaces (the agent was moved between them) are one kube.delete each, which an agent working
 *  in another namespace refuses. */
export const clusterTeardown: PhaseDef = {
  name: 'teardown',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) return skipped({ reason: 'no cluster chosen; nothing applied' });
    const groups = await envPlanRefs(ctx.db, env.id);
    if (groups.length === 0) return skipped({ reason: 'no plan was approved; nothing applied' });
    const host = await connectedHost(ctx, env.host, 'teardown');
    const out = { deleted: [] as KubeRef[], absent: [] as KubeRef[], kept: [] as KubeRef[] };
    for (const [i, g] of groups.entries()) {
      const last = i === groups.length - 1;
      const res = await ctx.call(host, 'kube.delete', { env: env.id, refs: g.refs, forget: last, ...inNamespace(g.namespace) }, i === 0 ? 'main' : `namespace-${g.namespace}`);
      out.deleted.push(...res.deleted);
      out.absent.push(...res.absent);
      out.kept.push(...(res.kept ?? []));
    }
    return ok({ host, deleted: out.deleted, absent: out.absent, ...(out.kept.length > 0 ? { kept: out.kept } : {}) });
  },
};
