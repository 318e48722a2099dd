/**
 * A cluster agent's live status (seed 002: "agents push it on change and on request"): every
 * interval, for each env it applied, the Deployments' desired/ready replicas, images and pods,
 * sent as `live_status` — the control plane's monitor flips running ⇄ degraded from it, as for a
 * host. Pods' reasons (`CrashLoopBackOff`, `OOMKilled`) travel in `detail` and `pods`.
 */
import type { AgentMessage } from '../../contracts/protocol.js';
import type { WorkloadStatus } from '../../contracts/kubernetes.js';
import { messageOf } from '../../contracts/errors.js';
import type { ClusterContext } from './cluster-context.js';

type LiveStatusMessage = Extract<AgentMessage, { type: 'live_status' }>;

/** One Deployment as a live workload (the loose `live_status` workload shape). */
export function liveWorkload(w: WorkloadStatus, service: string, version: string, port = 0): LiveStatusMessage['workloads'][number] {
  const reasons = [...new Set(w.pods.map((p) => p.reason).filter((r): r is string => r !== null))];
  return {
    service,
    version,
    desired: w.desired,
    ready: w.ready,
    detail: reasons.length > 0 ? reasons.join(', ') : `${w.ready}/${w.desired} ready`,
    runtime: 'kubernetes',
    command: null,
    image: w.images[0] ?? null,
    pid: null,
    port,
    restarts: w.pods.reduce((n, p) => n + p.restarts, 0),
    last_exit: reasons.find((r) => r === 'OOMKilled' || r === 'Error' || r === 'Completed') ?? null,
    deployment: w.name,
    pods: w.pods.map((p) => ({ ...p })),
  };
}

export class ClusterLiveStatus {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly ctx: ClusterContext, private readonly send: (msg: LiveStatusMessage) => boolean) {}

  start(everyMs: number): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => void this.report(), everyMs);
    this.timer.unref();
    void this.report();
  }

  /** One round over every env (skipped while the previous one still runs: a slow API server). */
  async report(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const [env, known] of this.ctx.envs.list()) {
        if (this.ctx.released.has(env)) continue;
        try {
          const status = await this.ctx.cluster.status(Object.keys(known.deployments));
          const workloads = status.map((w) => liveWorkload(w, known.deployments[w.name] ?? w.name, known.version, known.ports?.[w.name] ?? 0));
          this.send({ type: 'live_status', env, at: new Date().toISOString(), workloads });
        } catch (err) {
          this.ctx.log(`live status of env ${env}: ${messageOf(err)}`);
        }
      }
    } finally {
      this.running = false;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
