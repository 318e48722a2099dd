import type { KubeObject, KubeRef } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';
import { plainObject } from './kube-json.js';
import { planKindOf } from './plan-kinds.js';

/** The live objects named by `refs` in the agent's namespace, as JSON, in the refs' order; a missing one is skipped. */
export async function readObjects(c: ClusterClients, refs: readonly KubeRef[]): Promise<KubeObject[]> {
  for (const r of refs) planKindOf(r, `${r.kind} ${r.name}`);
  const found = await Promise.all(
    refs.map(async (r) => {
      try {
        const live = await c.objects.read({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, namespace: c.namespace } });
        return plainObject(live, r.apiVersion, r.kind);
      } catch (e) {
        if (httpStatusOf(e) === 404) return null;
        throw new KubeApiError(`read ${r.kind} ${r.name}`, e);
      }
    }),
  );
  return found.filter((o): o is KubeObject => o !== null);
}
