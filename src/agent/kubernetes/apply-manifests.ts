import { PatchStrategy } from '@kubernetes/client-node';
import { DenvError } from '../../contracts/errors.js';
import { FIELD_MANAGER, type KubeObject, type KubeRef } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { KubeApiError } from './kube-api-error.js';
import { droppedFields } from './kube-json.js';
import { orderForApply } from './order-for-apply.js';
import { planKindOf } from './plan-kinds.js';

/** Refuses, before anything is sent, what the plan may not hold or the client would not send as written. */
function check(manifests: readonly KubeObject[], namespace: string): void {
  const seen = new Set<string>();
  for (const m of manifests) {
    const what = `${m.kind} ${m.metadata?.name ?? '(no name)'}`;
    planKindOf(m, what);
    if (!m.metadata?.name) throw new DenvError('BAD_REQUEST', `${what}: metadata.name is required`);
    if (m.metadata.namespace !== undefined && m.metadata.namespace !== namespace)
      throw new DenvError('BAD_REQUEST', `${what}: namespace ${m.metadata.namespace} is not the agent's namespace ${namespace}`);
    if (seen.has(what)) throw new DenvError('BAD_REQUEST', `${what}: appears twice in the plan`);
    seen.add(what);
    const dropped = droppedFields(m);
    if (dropped.length) throw new DenvError('BAD_REQUEST', `${what}: unknown field${dropped.length > 1 ? 's' : ''} ${dropped.join(', ')}`);
  }
}

/**
 * Server-side applies each manifest in the agent's namespace, in apply order, one at a time (an
 * Ingress is sent only once its Service and Deployment were accepted). `force`: denv's plan is the
 * intent, so fields it sets that another manager changed are taken back; fields it leaves out (a
 * replica count someone scaled, an annotation a controller added) stay theirs. Idempotent.
 */
export async function applyManifests(c: ClusterClients, manifests: readonly KubeObject[]): Promise<KubeRef[]> {
  check(manifests, c.namespace);
  const applied: KubeRef[] = [];
  for (const m of orderForApply(manifests)) {
    const body = { ...structuredClone(m), metadata: { ...structuredClone(m.metadata), namespace: c.namespace } };
    try {
      await c.objects.patch(body, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
    } catch (e) {
      throw new KubeApiError(`apply ${m.kind} ${m.metadata.name}`, e);
    }
    applied.push({ apiVersion: m.apiVersion, kind: m.kind, name: m.metadata.name });
  }
  return applied;
}
