import type { KubeCommands } from '../../../contracts/kube-commands.js';
import type { WorkloadStatus } from '../../../contracts/kubernetes.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = KubeCommands['kube.wait'];

/** Pod reasons that do not heal by waiting (a bad image, a container that keeps crashing, a bad
 *  config): seen on every check for GIVE_UP_AFTER_MS, the wait ends not ready at once instead of
 *  running to its timeout. */
export const HOPELESS_REASONS: ReadonlySet<string> = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CrashLoopBackOff', 'CreateContainerConfigError', 'CreateContainerError', 'OOMKilled']);
export const GIVE_UP_AFTER_MS = 10_000;
const CHECK_MS = 1000;

export const hopeless = (workloads: readonly WorkloadStatus[]) => workloads.some((w) => w.pods.some((p) => p.reason !== null && HOPELESS_REASONS.has(p.reason)));

/** kube.wait: until each Deployment is rolled out (Cluster.waitReady: the controller saw the latest
 *  spec, every replica runs it and is ready), `timeout_ms`, or pods failing hopelessly for
 *  GIVE_UP_AFTER_MS; then `ready: false` with the last status (the control plane's phase fails,
 *  naming the pods' reasons). */
export const kubeWait: ClusterHandler<C['payload'], C['result']> = {
  async run({ deployments, timeout_ms }, ctx) {
    const started = Date.now();
    const giveUp = new AbortController();
    let failingSince: number | null = null;
    const watch = setInterval(() => {
      ctx.cluster
        .status(deployments)
        .then((now) => {
          failingSince = hopeless(now) ? (failingSince ?? Date.now()) : null;
          if (failingSince !== null && Date.now() - failingSince >= GIVE_UP_AFTER_MS) giveUp.abort();
        })
        .catch(() => {}); // a failed check is no evidence either way; waitReady reports the API's state
    }, CHECK_MS);
    try {
      const workloads = await ctx.cluster.waitReady(deployments, { timeoutMs: timeout_ms, signal: giveUp.signal });
      const waited = Date.now() - started;
      const ready = !giveUp.signal.aborted && waited < timeout_ms && workloads.length === deployments.length && workloads.every((w) => w.ready >= w.desired);
      return { ready, workloads, waited_ms: waited };
    } finally {
      clearInterval(watch);
    }
  },
};
