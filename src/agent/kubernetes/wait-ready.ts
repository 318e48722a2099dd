import type { WorkloadStatus } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { inspectDeployments, type DeploymentState } from './inspect-deployments.js';

/** How often the Deployments are read while waiting. */
export const POLL_MS = 500;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Reads the Deployments every POLL_MS until each exists and is rolled out (rolled-out.ts), then
 * resolves with their status. On timeout or abort it resolves too, with the last status read: the
 * caller judges it (a Deployment missing from it does not exist). Polling rather than a watch: a
 * read every half second of a few objects is cheap, and nothing is left open on abort. An API error
 * while waiting is retried at the next poll; it is thrown only if no read succeeded before the end.
 */
export async function waitReady(c: ClusterClients, names: readonly string[], o: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<WorkloadStatus[]> {
  const deadline = Date.now() + o.timeoutMs;
  const unique = [...new Set(names)];
  let last: DeploymentState[] | null = null;
  let lastError: unknown;
  for (;;) {
    try {
      last = await inspectDeployments(c, unique);
      if (last.length === unique.length && last.every((s) => s.rolledOut)) break;
    } catch (e) {
      lastError = e;
    }
    const left = deadline - Date.now();
    if (left <= 0 || o.signal?.aborted) break;
    await pause(Math.min(POLL_MS, left), o.signal);
  }
  if (last === null) throw lastError;
  return last.map((s) => s.status);
}
