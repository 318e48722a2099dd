import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = KubeCommands['kube.delete'];

/** kube.delete (teardown): exactly the named objects, in the agent's namespace; the env forgotten. */
export const kubeDelete: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, refs }, ctx) {
    const res = await ctx.cluster.remove(refs);
    await ctx.envs.forget(env);
    return res;
  },
};
