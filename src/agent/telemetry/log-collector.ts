/**
 * The agent's `recent_logs` (seed 002): for every workload (env + service) the process runtime
 * supervises, a ring buffer of its last 200 lines, filled by polling its log files (`poll`, driven by
 * agent-telemetry.ts every half second). Every line also goes through the incident detector. While the control plane watches an
 * env (`watch(env, ms)`, renewed by `logs.request` with `follow_ms`), new lines of that env are
 * pushed at once as `logs` frames.
 *
 * Bounded: 200 lines per workload; a workload whose service is gone from the runtime (stopped,
 * destroyed) keeps its lines for `GONE_KEEP_MS`, so the logs of what just stopped can still be
 * read, then is dropped.
 */
import { LOG_RING_LINES, type LogLine } from '../../contracts/telemetry.js';
import type { ProcessRuntime } from '../runtimes/process/process-runtime.js';
import type { DockerLogs } from './docker-workloads.js';
import type { IncidentDetector } from './incident-detector.js';
import { LogTailer } from './log-tailer.js';
import { RingBuffer } from './ring-buffer.js';

const GONE_KEEP_MS = 10 * 60_000;

interface Workload {
  readonly env: string;
  readonly service: string;
  readonly ring: RingBuffer<LogLine>;
  /** version → tailer of that version's log file. */
  readonly tailers: Map<string, LogTailer>;
  /** version → end of the last line taken from its file: a version tailed again (rolled back to)
   *  re-reads the file's tail, and what was taken before is not taken twice. Last 20 versions. */
  readonly seenUpTo: Map<string, number>;
  goneSince: number | null;
}

export class LogCollector {
  private readonly workloads = new Map<string, Workload>();
  private readonly watched = new Map<string, number>();
  private busy = false;
  /** Tailers of files that existed when this agent started: their first poll reads history (seen
   *  by an earlier agent), which fills the ring but is neither counted for incidents nor pushed. */
  private readonly history = new WeakSet<LogTailer>();
  private synced = false;

  constructor(
    private readonly runtime: ProcessRuntime,
    private readonly incidents: IncidentDetector,
    private readonly push: (env: string, lines: LogLine[]) => boolean,
    private readonly log: (line: string) => void,
    /** The image services' logs (docker-workloads.ts), polled and served alongside; absent without a pipeline. */
    private readonly docker: DockerLogs | null = null,
  ) {}

  /** Push the env's new lines as they come, for the next `ms` (0 stops). */
  watch(env: string, ms: number): void {
    if (ms > 0) this.watched.set(env, Date.now() + ms);
    else this.watched.delete(env);
  }

  /** The newest `lines` lines of each workload of the env, oldest first per workload. Polls first so the answer is current. */
  async snapshot(env: string, lines: number): Promise<LogLine[]> {
    await this.poll();
    const out: LogLine[] = [];
    for (const w of this.workloads.values()) if (w.env === env) out.push(...w.ring.last(lines));
    if (this.docker) out.push(...this.docker.snapshot(env, lines));
    return out;
  }

  /** Lines held for one workload (tests and the bench check the bound). */
  held(env: string, service: string): number {
    return this.workloads.get(`${env}/${service}`)?.ring.size ?? this.docker?.held(env, service) ?? 0;
  }

  /** One pass over every log file; never overlaps itself. */
  async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      this.sync();
      const now = Date.now();
      for (const w of this.workloads.values()) {
        const fresh: LogLine[] = [];
        for (const [version, tailer] of w.tailers) {
          const history = this.history.delete(tailer);
          const at = new Date().toISOString();
          const upTo = w.seenUpTo.get(version) ?? -1;
          for (const l of await tailer.poll()) {
            if (l.offset <= upTo) continue;
            w.seenUpTo.delete(version);
            w.seenUpTo.set(version, l.offset);
            if (w.seenUpTo.size > 20) w.seenUpTo.delete(w.seenUpTo.keys().next().value!);
            const line: LogLine = { service: w.service, version, offset: l.offset, at, text: l.text };
            w.ring.push(line);
            if (!history) {
              this.incidents.observe(w.env, w.service, l.text, at);
              fresh.push(line);
            }
          }
        }
        const until = this.watched.get(w.env);
        if (until !== undefined && until < now) this.watched.delete(w.env);
        else if (until !== undefined && fresh.length > 0) this.push(w.env, fresh.slice(-LOG_RING_LINES));
      }
      if (this.docker) {
        for (const [env, fresh] of await this.docker.poll()) {
          const until = this.watched.get(env);
          if (until !== undefined && until < now) this.watched.delete(env);
          else if (until !== undefined && fresh.length > 0) this.push(env, fresh);
        }
      }
    } catch (err) {
      this.log(`logs: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Match workloads and tailers to the runtime's records. */
  private sync(): void {
    const now = Date.now();
    const seen = new Set<string>();
    for (const env of this.runtime.envs()) {
      for (const rec of this.runtime.list(env)) {
        const key = `${rec.env}/${rec.service}`;
        seen.add(key);
        let w = this.workloads.get(key);
        if (!w) this.workloads.set(key, (w = { env: rec.env, service: rec.service, ring: new RingBuffer(LOG_RING_LINES), tailers: new Map(), seenUpTo: new Map(), goneSince: null }));
        w.goneSince = null;
        if (!w.tailers.has(rec.version)) {
          const tailer = new LogTailer(rec.log_path);
          if (!this.synced) this.history.add(tailer);
          w.tailers.set(rec.version, tailer);
        }
      }
    }
    this.synced = true;
    for (const [key, w] of this.workloads) {
      if (seen.has(key)) {
        // Drop tailers of versions the runtime no longer has (their lines stay in the ring).
        const versions = new Set(this.runtime.list(w.env).filter((r) => r.service === w.service).map((r) => r.version));
        for (const v of w.tailers.keys()) if (!versions.has(v)) w.tailers.delete(v);
        continue;
      }
      w.tailers.clear();
      w.goneSince ??= now;
      if (now - w.goneSince > GONE_KEEP_MS) {
        this.workloads.delete(key);
        if (![...this.workloads.values()].some((o) => o.env === w.env)) this.incidents.forget(w.env);
      }
    }
  }
}
