import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { WorkloadStatus } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';
import { labelSelector } from './label-selector.js';
import { rolledOut } from './rolled-out.js';
import { workloadStatus } from './workload-status.js';

export interface DeploymentState {
  readonly status: WorkloadStatus;
  readonly rolledOut: boolean;
}

/** A Deployment of the agent's namespace and the pods its selector matches; null when it does not exist. */
export async function readDeployment(c: ClusterClients, name: string): Promise<{ deployment: V1Deployment; pods: V1Pod[] } | null> {
  let deployment: V1Deployment;
  try {
    deployment = await c.apps.readNamespacedDeployment({ name, namespace: c.namespace });
  } catch (e) {
    if (httpStatusOf(e) === 404) return null;
    throw new KubeApiError(`read Deployment ${name}`, e);
  }
  try {
    const pods = await c.core.listNamespacedPod({ namespace: c.namespace, labelSelector: labelSelector(deployment.spec?.selector) });
    return { deployment, pods: pods.items };
  } catch (e) {
    throw new KubeApiError(`list the pods of Deployment ${name}`, e);
  }
}

/** Status and rollout of each named Deployment, in the order given; those that do not exist are left out. */
export async function inspectDeployments(c: ClusterClients, names: readonly string[]): Promise<DeploymentState[]> {
  const found = await Promise.all(names.map((n) => readDeployment(c, n)));
  return found.filter((f) => f !== null).map((f) => ({ status: workloadStatus(f.deployment, f.pods), rolledOut: rolledOut(f.deployment, f.pods) }));
}
