/**
 * Feeds the deployment counters and the phase duration histogram of `/metrics` from the bus:
 * every `progress` event (the engine emits one per committed transition, with what it stored)
 * is compared with what was seen of that deployment — its start, each phase that finished, its
 * end. Each replica observes the deployments it runs. A deployment's events can repeat after it
 * ended (a resumed run commits its end again), so ended ones stay remembered. Bounded: the last
 * `MAX_TRACKED`.
 */
import type { Bus, DeploymentProgress } from '../bus.js';

const TERMINAL = new Set(['succeeded', 'failed', 'rolled_back']);
const MAX_TRACKED = 10_000;

export interface DeploymentSink {
  started(kind: string): void;
  finished(kind: string, status: string): void;
  phase(kind: string, phase: string, status: string, seconds: number): void;
}

export class DeploymentObserver {
  /** id → phases observed, and whether its end was counted. */
  private readonly tracked = new Map<string, { phases: Set<string>; ended: boolean }>();
  private readonly onProgress = (row: DeploymentProgress) => this.observe(row);

  constructor(private readonly bus: Bus, private readonly sink: DeploymentSink) {
    bus.on('progress', this.onProgress);
  }

  close(): void {
    this.bus.off('progress', this.onProgress);
  }

  observe(row: DeploymentProgress): void {
    const { id } = row;
    if (row.status === 'pending') return;
    let seen = this.tracked.get(id);
    if (seen?.ended) return;
    if (!seen) {
      seen = { phases: new Set(), ended: false };
      this.tracked.set(id, seen);
      if (this.tracked.size > MAX_TRACKED) this.tracked.delete(this.tracked.keys().next().value!);
      this.sink.started(row.kind);
    }
    for (const p of row.phases) {
      if (seen.phases.has(p.name) || !p.finished_at || p.status === 'pending' || p.status === 'running') continue;
      seen.phases.add(p.name);
      if (p.started_at) this.sink.phase(row.kind, p.name, p.status, Math.max(0, Date.parse(p.finished_at) - Date.parse(p.started_at)) / 1000);
    }
    if (TERMINAL.has(row.status)) {
      seen.ended = true;
      seen.phases.clear();
      this.sink.finished(row.kind, row.status);
    }
  }
}
