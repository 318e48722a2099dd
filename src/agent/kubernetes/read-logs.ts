import type { ClusterClients } from './cluster-clients.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';
import { readDeployment } from './inspect-deployments.js';
import { mergePodLogs, type PodLogChunk, type PodLogLine } from './merge-pod-logs.js';

/** The most lines a request returns (the agent protocol's `request-logs` ring: seed "up to 200 lines"). */
export const MAX_LOG_LINES = 200;

/**
 * The last ≤ min(lines, 200) log lines of a Deployment's pods, old and new alike (a rollout's crash
 * is in the new pod), merged by time. Each container is asked for that many lines with timestamps
 * (`tailLines`, `timestamps=true`), so no pod's log is read whole. A container that cannot give a log
 * yet (400: waiting to start, its image not pulled) or a pod gone meanwhile (404) gives none.
 * A Deployment that does not exist gives [].
 */
export async function readLogs(c: ClusterClients, deployment: string, lines: number): Promise<PodLogLine[]> {
  const n = Math.min(Math.max(Math.floor(lines), 0), MAX_LOG_LINES);
  if (n === 0) return [];
  const found = await readDeployment(c, deployment);
  if (!found) return [];
  const reads = found.pods.flatMap((pod) => {
    const podName = pod.metadata?.name ?? '';
    const containers = (pod.spec?.containers ?? []).map((x) => x.name);
    return containers.map(async (container): Promise<PodLogChunk | null> => {
      try {
        const text = await c.core.readNamespacedPodLog({ name: podName, namespace: c.namespace, container, tailLines: n, timestamps: true });
        return { prefix: containers.length > 1 ? `${podName}/${container}` : podName, text: String(text ?? '') };
      } catch (e) {
        const status = httpStatusOf(e);
        if (status === 400 || status === 404) return null;
        throw new KubeApiError(`read the log of pod ${podName}`, e);
      }
    });
  });
  const chunks = (await Promise.all(reads)).filter((x): x is PodLogChunk => x !== null);
  return mergePodLogs(chunks.sort((a, b) => a.prefix.localeCompare(b.prefix)), n);
}
