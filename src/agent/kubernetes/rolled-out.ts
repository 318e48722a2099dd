import type { V1Deployment, V1Pod } from '@kubernetes/client-node';

/**
 * Whether a Deployment has finished rolling out what was last applied; pure. As `kubectl rollout
 * status` judges it, and stricter than ready == desired alone: the controller has seen the latest
 * spec (observedGeneration ≥ generation), every replica runs the new template (updatedReplicas),
 * no old pod is left (status.replicas), and all of them are ready. A rollout of a broken image
 * otherwise looks done: the old pods keep readyReplicas at desired while the new ones crash.
 * Scaled to 0 it is done once no pod remains.
 */
export function rolledOut(d: V1Deployment, pods: readonly V1Pod[]): boolean {
  const desired = d.spec?.replicas ?? 1;
  const s = d.status ?? {};
  if ((s.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) return false;
  if (desired === 0) return pods.length === 0;
  return (s.updatedReplicas ?? 0) === desired && (s.replicas ?? 0) === desired && (s.readyReplicas ?? 0) === desired;
}
