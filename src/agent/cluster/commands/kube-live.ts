import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { ClusterHandler } from '../cluster-context.js';
import { ownerOf } from '../ownership.js';

type C = KubeCommands['kube.live'];

/** kube.live (read-only): the env's objects in the cluster, for the planner to evolve — only those
 *  stamped with its id: another env's objects that share its label are never adopted. */
export const kubeLive: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, label }, ctx) {
    return { objects: (await ctx.cluster.listEnv(label)).filter((o) => ownerOf(o) === env) };
  },
};
