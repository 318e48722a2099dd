/**
 * When each background sweep last finished and how long it took, for the `/metrics` sweep lag:
 * seconds since a sweep last completed a run. A healthy sweep stays under its interval; a stuck
 * or failing one grows without bound. Bounded: one entry per sweep name.
 */
export interface SweepStat {
  readonly lastFinishedAt: number | null;
  readonly lastDurationMs: number | null;
  readonly failures: number;
}

export class SweepStats {
  private readonly stats = new Map<string, SweepStat>();
  private readonly listeners: ((name: string, ms: number) => void)[] = [];

  /** `sweep`, recording each run's completion under `name` (a failed run records a failure, not a completion). */
  wrap<T>(name: string, sweep: () => Promise<T>): () => Promise<T> {
    this.stats.set(name, { lastFinishedAt: null, lastDurationMs: null, failures: 0 });
    return async () => {
      const started = performance.now();
      try {
        const out = await sweep();
        const ms = performance.now() - started;
        this.stats.set(name, { lastFinishedAt: Date.now(), lastDurationMs: ms, failures: this.stats.get(name)?.failures ?? 0 });
        for (const l of this.listeners) l(name, ms);
        return out;
      } catch (err) {
        const prev = this.stats.get(name);
        this.stats.set(name, { lastFinishedAt: prev?.lastFinishedAt ?? null, lastDurationMs: prev?.lastDurationMs ?? null, failures: (prev?.failures ?? 0) + 1 });
        throw err;
      }
    };
  }

  onRun(fn: (name: string, ms: number) => void): void {
    this.listeners.push(fn);
  }

  entries(): [string, SweepStat][] {
    return [...this.stats];
  }
}
