import { DenvError } from '../../../contracts/errors.js';
import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { KubeObject } from '../../../contracts/kubernetes.js';
import type { ClusterHandler } from '../cluster-context.js';
import { notOwned, refOf, stamped } from '../ownership.js';
import { checkPlanNamespace } from '../plan-namespace.js';

type C = KubeCommands['kube.apply'];

/** kube.apply (deploy, upgrade, start, stop as replicas 0): server-side apply of the manifests,
 *  each stamped with the env's id, then the env's Deployments and Ingresses remembered for live
 *  status. Refused (CONFLICT), before anything is applied, when an object of the same name belongs
 *  to another env or to no env (ownership.ts). Idempotent. */
export const kubeApply: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, version, manifests, namespace }, ctx) {
    checkPlanNamespace(namespace, ctx);
    const objects = stamped(manifests as KubeObject[], env);
    const foreign = (await ctx.cluster.read(objects.map(refOf))).map((live) => notOwned(live, env)).filter((why): why is string => why !== null);
    if (foreign.length > 0) throw new DenvError('CONFLICT', `${foreign.join('; ')} (namespace ${ctx.cluster.namespace}); rename the env, or remove that object`);
    const applied = await ctx.cluster.apply(objects);
    await ctx.envs.applied(env, version, objects);
    return { applied, namespace: ctx.cluster.namespace };
  },
};
