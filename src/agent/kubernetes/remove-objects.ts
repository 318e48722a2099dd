import type { KubeRef } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';
import { orderForApply } from './order-for-apply.js';
import { planKindOf } from './plan-kinds.js';

/**
 * Deletes exactly `refs` in the agent's namespace, in reverse apply order (routes first, storage
 * last). Propagation Background, kubectl's default: the named object is gone when the call returns,
 * so a read or a re-deploy under the same name right after does not meet a terminating object (as
 * Foreground would leave it until its pods are gone), and the garbage collector removes its
 * ReplicaSets and pods. Idempotent: an object already gone is `absent`.
 */
export async function removeObjects(c: ClusterClients, refs: readonly KubeRef[]): Promise<{ deleted: KubeRef[]; absent: KubeRef[] }> {
  for (const r of refs) planKindOf(r, `${r.kind} ${r.name}`);
  const deleted: KubeRef[] = [];
  const absent: KubeRef[] = [];
  for (const r of orderForApply(refs).reverse()) {
    try {
      await c.objects.delete({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, namespace: c.namespace } }, undefined, undefined, undefined, undefined, 'Background');
      deleted.push(r);
    } catch (e) {
      if (httpStatusOf(e) !== 404) throw new KubeApiError(`delete ${r.kind} ${r.name}`, e);
      absent.push(r);
    }
  }
  return { deleted, absent };
}
