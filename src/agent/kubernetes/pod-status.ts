import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { PodStatus } from '../../contracts/kubernetes.js';

/**
 * One pod as the agent reports it; pure. `ready` is the pod's Ready condition. `reason` says why it
 * is not running well, first found of: a container waiting (`CrashLoopBackOff`, `ImagePullBackOff`;
 * init containers first, as they run first), a container's last termination (`OOMKilled`, `Error`),
 * the pod's own reason (`Evicted`), its PodScheduled condition's (`Unschedulable`). A ready pod's
 * old termination is history, not a reason: it is reported only while the pod is not ready.
 */
export function podStatus(pod: V1Pod): PodStatus {
  const s = pod.status;
  const containers: V1ContainerStatus[] = [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? [])];
  const ready = s?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const waiting = containers.map((c) => c.state?.waiting?.reason).find((r) => !!r);
  const terminated = ready ? undefined : containers.map((c) => c.lastState?.terminated?.reason ?? c.state?.terminated?.reason).find((r) => !!r && r !== 'Completed');
  const unscheduled = s?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.reason;
  return {
    name: pod.metadata?.name ?? '',
    phase: s?.phase ?? 'Unknown',
    ready,
    restarts: (s?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0),
    reason: waiting ?? terminated ?? s?.reason ?? unscheduled ?? null,
  };
}
