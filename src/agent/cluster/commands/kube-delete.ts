import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { ClusterHandler } from '../cluster-context.js';
import { notOwned, refOf } from '../ownership.js';

type C = KubeCommands['kube.delete'];

/** kube.delete (teardown, and a verdict's prune): exactly the named objects that belong to the env,
 *  in the agent's namespace; one of another env (or of none) is left and reported in `kept`.
 *  `forget` (teardown): the agent also forgets the env (no more live status or logs for it). */
export const kubeDelete: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, refs, forget }, ctx) {
    const live = await ctx.cluster.read(refs);
    const kept = live.filter((o) => notOwned(o, env) !== null).map(refOf);
    const keptKeys = new Set(kept.map((r) => `${r.apiVersion}/${r.kind}/${r.name}`));
    const res = await ctx.cluster.remove(refs.filter((r) => !keptKeys.has(`${r.apiVersion}/${r.kind}/${r.name}`)));
    if (forget) await ctx.envs.forget(env);
    return { ...res, kept };
  },
};
