/**
 * Counts recurring error lines per env (seed 002 "Incidents"). Every line a workload prints goes
 * through `observe`; error lines are grouped by pattern (fingerprint.ts) and counted. A pattern
 * seen `threshold` times becomes an incident: `due()` then returns a report for it, and again
 * whenever its count has grown, at most once per `minIntervalMs`, so a burst of 1000 errors is a
 * handful of frames, and the last report always carries the final count.
 *
 * Bounded: at most `maxPatterns` patterns per env; the least recently seen is forgotten first.
 */
import type { IncidentReport } from '../../contracts/telemetry.js';
import { LOG_LINE_MAX_CHARS } from '../../contracts/telemetry.js';
import { fingerprintOf, isErrorLine, normaliseLine } from './fingerprint.js';

interface Pattern {
  readonly service: string;
  readonly pattern: string;
  readonly fingerprint: string;
  sample: string;
  count: number;
  firstAt: string;
  lastAt: string;
  /** The count last reported (0: never). */
  reported: number;
  reportedAt: number;
}

export interface IncidentDetectorOptions {
  /** Occurrences after which a pattern is an incident (default 5). */
  threshold?: number;
  /** Per fingerprint, reports are at least this far apart (default 1 s). */
  minIntervalMs?: number;
  /** Patterns kept per env (default 100). */
  maxPatterns?: number;
  /** Identifies this agent process's counting (contracts/telemetry.ts `epoch`). */
  epoch: string;
}

export class IncidentDetector {
  /** env → fingerprint → pattern, in least-recently-seen-first order (Map keeps insertion order). */
  private readonly envs = new Map<string, Map<string, Pattern>>();
  threshold: number;
  private readonly minIntervalMs: number;
  private readonly maxPatterns: number;

  constructor(private readonly opts: IncidentDetectorOptions) {
    this.threshold = opts.threshold ?? 5;
    this.minIntervalMs = opts.minIntervalMs ?? 1000;
    this.maxPatterns = opts.maxPatterns ?? 100;
  }

  observe(env: string, service: string, text: string, at: string): void {
    if (!isErrorLine(text)) return;
    const pattern = normaliseLine(text);
    const fingerprint = fingerprintOf(service, pattern);
    let patterns = this.envs.get(env);
    if (!patterns) this.envs.set(env, (patterns = new Map()));
    const known = patterns.get(fingerprint);
    if (known) {
      patterns.delete(fingerprint); // re-insert: now the most recently seen
      known.count++;
      known.lastAt = at;
      known.sample = text.slice(0, LOG_LINE_MAX_CHARS);
      patterns.set(fingerprint, known);
      return;
    }
    patterns.set(fingerprint, { service, pattern, fingerprint, sample: text.slice(0, LOG_LINE_MAX_CHARS), count: 1, firstAt: at, lastAt: at, reported: 0, reportedAt: 0 });
    while (patterns.size > this.maxPatterns) patterns.delete(patterns.keys().next().value!);
  }

  /** Reports to send now; each is marked sent (call `unsent` for one whose send failed). */
  due(now = Date.now()): IncidentReport[] {
    const out: IncidentReport[] = [];
    for (const [env, patterns] of this.envs) {
      for (const p of patterns.values()) {
        if (p.count < this.threshold || p.count === p.reported || now - p.reportedAt < this.minIntervalMs) continue;
        p.reported = p.count;
        p.reportedAt = now;
        out.push({ env, service: p.service, fingerprint: p.fingerprint, pattern: p.pattern, sample: p.sample, count: p.count, epoch: this.opts.epoch, first_at: p.firstAt, last_at: p.lastAt });
      }
    }
    return out;
  }

  /** A report could not be sent (no connection): report it again on the next `due`. */
  unsent(report: IncidentReport): void {
    const p = this.envs.get(report.env)?.get(report.fingerprint);
    if (p) {
      p.reported = 0;
      p.reportedAt = 0;
    }
  }

  /** Forget an env (destroyed or gone from this host). */
  forget(env: string): void {
    this.envs.delete(env);
  }

  patternCount(env: string): number {
    return this.envs.get(env)?.size ?? 0;
  }
}
