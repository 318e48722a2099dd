/**
 * Live status (seed 002 "live_status"): per env, per workload, whether it is ready now. Every
 * `intervalMs` the reporter probes each service of each env's newest version once (its health
 * check, no retries) and pushes `live_status` for an env when its readiness picture changed, and
 * for every env after each (re)connection. The control plane's monitor sweep turns it into
 * running ⇄ degraded. Each workload also says how its process last ended (`last_exit`: exit code,
 * signal, or OOMKilled — exit-reasons.ts) and what its datasets use.
 */
import type { LiveStatus, LiveWorkload } from '../../contracts/protocol.js';
import type { AgentContext } from '../context.js';
import { probeOnce } from '../health/wait-healthy.js';
import { dockerEnvs, dockerLiveWorkloads } from './docker-workloads.js';
import { describeExit } from './exit-reasons.js';
import { directoryUsage } from './volume-usage.js';

/** The records of the env's newest version (older versions are being retired). */
function current(ctx: AgentContext, env: string) {
  const recs = ctx.runtime.list(env); // oldest start first
  const newest = recs[recs.length - 1]?.version;
  return recs.filter((r) => r.version === newest);
}

export async function collectLiveStatus(ctx: AgentContext, env: string): Promise<LiveStatus> {
  const workloads: LiveWorkload[] = [];
  for (const rec of current(ctx, env)) {
    const { cwd, env: vars, prefix } = ctx.runtime.contextOf(rec);
    // A service held paused (verify's frozen agent) cannot answer: not ready, and not probed (a
    // probe of a stopped process only waits out its timeout).
    const probe = rec.held ? { ok: false, detail: 'paused (frozen by verify until env.resume)' } : rec.state === 'running'
      ? await probeOnce(rec.spec.health, { service: rec.service, port: rec.port, cwd, env: vars, prefix, exitOf: () => ctx.runtime.exitOf(rec) })
      : { ok: false, detail: rec.state };
    // A one-shot that ran to success (an `init` others wait for with service_completed_successfully)
    // is done, not down: nothing of it is desired any more, so it never makes its env degraded.
    const exit = rec.state === 'exited' ? (rec.last_exit ?? rec.exit ?? null) : null;
    // Only where the policy says exit 0 is an end (`no`, `on-failure`): a server under the default
    // policy that exited is down, whatever its code.
    const completed = exit?.code === 0 && (rec.spec.restart === 'no' || rec.spec.restart === 'on-failure');
    workloads.push({
      service: rec.service,
      version: rec.version,
      desired: completed ? 0 : 1,
      ready: probe.ok ? 1 : 0,
      detail: completed ? 'completed (exit code 0)' : probe.detail,
      runtime: 'process',
      command: rec.spec.command ? [...rec.spec.command] : null,
      image: rec.spec.image,
      pid: rec.pid,
      port: rec.port,
      restarts: rec.restarts,
      // The last death, restarted or not (with its reason, e.g. OOMKilled); state written by an
      // older agent only has the start failure's exit.
      last_exit: rec.last_exit ? describeExit(rec.last_exit, rec.last_exit.reason) : rec.exit ? describeExit(rec.exit, null) : null,
      last_exit_at: rec.last_exit?.at ?? null,
      state: rec.state,
      started_at: rec.started_at,
      volumes: await Promise.all(Object.entries(rec.datasets).map(async ([name, dir]) => ({ name, ...(await directoryUsage(dir)) }))),
    });
  }
  // Image services (docker slots of the env) follow the process services: docker-workloads.ts.
  if (ctx.pipeline) workloads.push(...(await dockerLiveWorkloads(ctx.pipeline, env)));
  return { env, at: new Date().toISOString(), workloads };
}

/** What changes trigger a push: readiness, state and identity, not timestamps or probe wording.
 *  The state matters: "starting, not ready" and "running, not ready" look alike otherwise, and a
 *  service that fails right after starting would never be reported unhealthy. */
const fingerprint = (s: LiveStatus) => JSON.stringify(s.workloads.map((w) => [w.service, w.version, w.state, w.ready, w.pid, w.restarts, w.last_exit, w.desired]));

const REFRESH_EVERY = 20;

export class LiveStatusReporter {
  private readonly last = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(private readonly ctx: AgentContext, private readonly send: (status: LiveStatus) => boolean, private intervalMs: number) {}

  /** (Re)start probing every `intervalMs` (the control plane says how often in `welcome`). */
  start(intervalMs = this.intervalMs): void {
    this.intervalMs = intervalMs;
    if (this.timer) clearInterval(this.timer);
    // Every REFRESH_EVERY ticks every env is pushed even unchanged, so a status the control plane
    // set aside (received before the env's last change) is replaced by a fresh one.
    let ticks = 0;
    this.timer = setInterval(() => void this.tick(++ticks % REFRESH_EVERY === 0), intervalMs);
    this.timer.unref();
  }

  /** After a (re)connection: push every env's status once. */
  resync(): void {
    void this.tick(true);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(all: boolean): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      // Envs with process services, and envs with image services only.
      const envs = new Set([...this.ctx.runtime.envs(), ...(this.ctx.pipeline ? await dockerEnvs(this.ctx.pipeline) : [])]);
      for (const env of envs) {
        const status = await collectLiveStatus(this.ctx, env);
        const fp = fingerprint(status);
        if (!all && this.last.get(env) === fp) continue;
        if (this.send(status)) this.last.set(env, fp);
      }
    } catch (err) {
      this.ctx.log(`live status: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }
}
