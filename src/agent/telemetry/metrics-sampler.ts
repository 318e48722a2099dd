/**
 * CPU and memory samples and the uptime probe, per workload, every `intervalMs` (seed 002
 * "Metrics & uptime"). One tick: one pass over /proc for every service's process group, the
 * memory cgroup of each (its limit, and the OOM-kill baseline exit-reasons.ts needs), one HTTP
 * probe per HTTP endpoint. Each workload keeps its samples in a window of `WINDOW_SAMPLES`; those
 * not yet delivered are pushed as one `metrics` frame per env, and kept for the next tick when
 * the link is down (the window bounds how many wait).
 */
import type { MetricSample } from '../../contracts/telemetry.js';
import type { ProcessRuntime } from '../runtimes/process/process-runtime.js';
import { serviceKey } from '../runtimes/process/service-env.js';
import { probeAvailability, probeTarget } from './availability.js';
import type { DockerSamples } from './docker-workloads.js';
import type { ExitReasons } from './exit-reasons.js';
import { memoryCgroupOf, memoryLimit, type MemoryCgroup } from './memory-cgroup.js';
import { cpuPercent, pageSizeBytes, readGroupUsage } from './proc-usage.js';
import { RingBuffer } from './ring-buffer.js';

/** Samples kept per workload: 10 minutes at the default 5 s. */
export const WINDOW_SAMPLES = 120;

interface Window {
  readonly env: string;
  readonly samples: RingBuffer<MetricSample>;
  /** `at` of the newest sample the control plane has been sent. */
  sentUpTo: string;
  prev: { pid: number; ticks: number; at: number } | null;
}

export class MetricsSampler {
  private readonly windows = new Map<string, Window>();
  private ownCgroup: Promise<MemoryCgroup | null> | null = null;
  private busy = false;

  constructor(
    private readonly runtime: ProcessRuntime,
    private readonly exitReasons: ExitReasons,
    private readonly push: (env: string, samples: MetricSample[]) => boolean,
    private readonly log: (line: string) => void,
    /** The image services' samples (docker-workloads.ts), kept in the same windows; absent without a pipeline. */
    private readonly docker: DockerSamples | null = null,
  ) {}

  /** One round of samples, then push what is unsent. Never overlaps itself. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.sample();
      this.flush();
    } catch (err) {
      this.log(`metrics: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Samples held for one workload, all envs (the bench checks the bound). */
  held(): number {
    let n = 0;
    for (const w of this.windows.values()) n += w.samples.size;
    return n;
  }

  /** The window of one workload (`env/service`), oldest first. */
  window(env: string, service: string): MetricSample[] {
    return this.windows.get(`${env}/${service}`)?.samples.toArray() ?? [];
  }

  private async sample(): Promise<void> {
    this.ownCgroup ??= memoryCgroupOf('self');
    const own = await this.ownCgroup;
    const recs = this.runtime.envs().flatMap((env) => this.runtime.list(env)).filter((r) => r.pid !== null && r.state !== 'exited');
    const usage = await readGroupUsage(new Set(recs.map((r) => r.pid!)));
    const page = await pageSizeBytes();
    const live = new Set<string>();
    await Promise.all(
      recs.map(async (rec) => {
        const pid = rec.pid!;
        const key = `${rec.env}/${rec.service}`;
        live.add(key);
        const u = usage.get(pid);
        if (!u) return; // died since the runtime last looked
        const now = Date.now();
        let w = this.windows.get(key);
        if (!w) this.windows.set(key, (w = { env: rec.env, samples: new RingBuffer(WINDOW_SAMPLES), sentUpTo: '', prev: null }));
        const cpu = w.prev && w.prev.pid === pid ? cpuPercent(w.prev.ticks, u.cpuTicks, now - w.prev.at) : null;
        w.prev = { pid, ticks: u.cpuTicks, at: now };
        await this.exitReasons.observe(serviceKey(rec), pid);
        const cg = await memoryCgroupOf(pid);
        const limit = cg && cg.dir !== own?.dir ? await memoryLimit(cg) : null;
        // Availability is judged from the first passed health check on: a service still starting
        // is not down, and one held paused by verify is frozen on purpose.
        const target = rec.held || rec.state !== 'running' ? null : probeTarget(rec.spec, rec.port);
        const probe = target ? await probeAvailability(target.port, target.path) : null;
        w.samples.push({
          service: rec.service,
          version: rec.version,
          at: new Date(now).toISOString(),
          cpu_pct: cpu,
          mem_bytes: u.rssPages * page,
          mem_limit_bytes: limit,
          up: probe ? probe.up : null,
          latency_ms: probe ? probe.latency_ms : null,
          detail: probe ? probe.detail : null,
        });
      }),
    );
    // An engine that does not answer costs the image services this round, not the process services' bookkeeping.
    const dockerSamples = this.docker ? await this.docker.sample().catch((err: unknown) => (this.log(`metrics (docker): ${(err as Error).message}`), [])) : [];
    for (const { env, sample } of dockerSamples) {
      const key = `${env}/${sample.service}`;
      live.add(key);
      let w = this.windows.get(key);
      if (!w) this.windows.set(key, (w = { env, samples: new RingBuffer(WINDOW_SAMPLES), sentUpTo: '', prev: null }));
      w.samples.push(sample);
    }
    // Several versions of a service may run at once (a deploy): one window per workload either way.
    for (const key of this.windows.keys()) if (!live.has(key)) this.windows.delete(key);
    this.exitReasons.retain(new Set(recs.map((r) => serviceKey(r))));
  }

  private flush(): void {
    const byEnv = new Map<string, { w: Window; fresh: MetricSample[] }[]>();
    for (const w of this.windows.values()) {
      const fresh = w.samples.toArray().filter((s) => s.at > w.sentUpTo);
      if (fresh.length === 0) continue;
      const list = byEnv.get(w.env) ?? [];
      list.push({ w, fresh });
      byEnv.set(w.env, list);
    }
    for (const [env, parts] of byEnv) {
      if (!this.push(env, parts.flatMap((p) => p.fresh))) continue;
      for (const p of parts) p.w.sentUpTo = p.fresh[p.fresh.length - 1]!.at;
    }
  }
}
