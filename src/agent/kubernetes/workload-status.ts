import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { LABEL_SERVICE, type WorkloadStatus } from '../../contracts/kubernetes.js';
import { podStatus } from './pod-status.js';

/** A Deployment and the pods its selector matches, as the agent reports them; pure. `desired` is
 *  spec.replicas (the API server defaults it to 1), `ready` status.readyReplicas — which counts old
 *  pods still serving during a rollout too (rolled-out.ts tells a finished rollout). */
export function workloadStatus(d: V1Deployment, pods: readonly V1Pod[]): WorkloadStatus {
  return {
    name: d.metadata?.name ?? '',
    service: d.metadata?.labels?.[LABEL_SERVICE] ?? null,
    desired: d.spec?.replicas ?? 1,
    ready: d.status?.readyReplicas ?? 0,
    images: (d.spec?.template.spec?.containers ?? []).map((c) => c.image ?? ''),
    pods: [...pods].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')).map(podStatus),
  };
}
