import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { KubeRef } from '../../../contracts/kubernetes.js';
import type { ClusterHandler } from '../cluster-context.js';
import { notOwned, refOf } from '../ownership.js';
import { checkPlanNamespace } from '../plan-namespace.js';

type C = KubeCommands['kube.delete'];

const key = (r: KubeRef) => `${r.apiVersion}/${r.kind}/${r.name}`;

/** kube.delete (teardown, a verdict's prune, a failed first deploy's removal): exactly the named
 *  objects that exist and belong to the env, in the agent's namespace; one of another env (or of
 *  none) is left and reported in `kept`, one not there is `absent` (no DELETE is sent for it).
 *  `forget`: the agent also forgets the env (no more live status or logs for it). */
export const kubeDelete: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, refs, forget, namespace }, ctx) {
    checkPlanNamespace(namespace, ctx);
    const live = await ctx.cluster.read(refs);
    const kept = live.filter((o) => notOwned(o, env) !== null).map(refOf);
    const keptKeys = new Set(kept.map(key));
    const liveKeys = new Set(live.map((o) => key(refOf(o))));
    const res = await ctx.cluster.remove(refs.filter((r) => liveKeys.has(key(r)) && !keptKeys.has(key(r))));
    if (forget) await ctx.envs.forget(env);
    return { deleted: res.deleted, absent: [...res.absent, ...refs.filter((r) => !liveKeys.has(key(r)))], kept };
  },
};
