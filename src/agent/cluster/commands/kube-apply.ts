import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { KubeObject } from '../../../contracts/kubernetes.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = KubeCommands['kube.apply'];

/** kube.apply (deploy, upgrade, start, stop as replicas 0): server-side apply of the manifests,
 *  then the env's Deployments and Ingresses remembered for live status. Idempotent. */
export const kubeApply: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, version, manifests }, ctx) {
    const applied = await ctx.cluster.apply(manifests as KubeObject[]);
    await ctx.envs.applied(env, version, manifests as KubeObject[]);
    return { applied, namespace: ctx.cluster.namespace };
  },
};
