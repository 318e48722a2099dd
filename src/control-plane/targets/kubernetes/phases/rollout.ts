/**
 * Waiting for a rollout on a cluster: `kube.wait` until every Deployment of the manifests has its
 * replicas ready, at most `ROLLOUT_TIMEOUT_MS` (the agent gives up sooner when pods keep failing
 * for a reason such as ImagePullBackOff or CrashLoopBackOff). Not ready: the phase fails naming
 * each workload's ready/desired and its pods' reasons.
 */
import type { KubeObject, WorkloadStatus } from '../../../../contracts/kubernetes.js';
import { PhaseFailed, type PhaseContext } from '../../../operations/phase.js';
import { deploymentsOf } from '../cluster-plans.js';

export const ROLLOUT_TIMEOUT_MS = 5 * 60_000;

export function describeWorkloads(workloads: readonly WorkloadStatus[]): string {
  return workloads
    .map((w) => {
      const reasons = [...new Set(w.pods.map((p) => p.reason).filter((r): r is string => r !== null))];
      return `${w.name} ${w.ready}/${w.desired} ready${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`;
    })
    .join('; ');
}

/** Wait for the manifests' Deployments on `host`; throws PhaseFailed (evidence: workloads) when not ready. */
export async function waitRollout(ctx: PhaseContext, host: string, manifests: readonly KubeObject[], key = 'main'): Promise<{ workloads: WorkloadStatus[]; waited_ms: number }> {
  const deployments = deploymentsOf(manifests);
  const res = await ctx.call(host, 'kube.wait', { env: ctx.deployment.env, deployments, timeout_ms: ROLLOUT_TIMEOUT_MS }, key);
  if (!res.ready) throw new PhaseFailed(`rollout not ready: ${describeWorkloads(res.workloads)}`, { workloads: res.workloads, waited_ms: res.waited_ms });
  return { workloads: res.workloads, waited_ms: res.waited_ms };
}
