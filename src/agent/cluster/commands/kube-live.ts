import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = KubeCommands['kube.live'];

/** kube.live (read-only): the env's objects in the cluster, for the planner to evolve. */
export const kubeLive: ClusterHandler<C['payload'], C['result']> = {
  async run({ label }, ctx) {
    return { objects: await ctx.cluster.listEnv(label) };
  },
};
