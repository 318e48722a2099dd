import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = KubeCommands['kube.status'];

/** kube.status (read-only): the Deployments' state and the Ingresses' hosts now. */
export const kubeStatus: ClusterHandler<C['payload'], C['result']> = {
  async run({ deployments, ingresses }, ctx) {
    const [workloads, endpoints] = await Promise.all([ctx.cluster.status(deployments), ctx.cluster.endpoints(ingresses)]);
    return { workloads, endpoints };
  },
};
