/**
 * Feeds the deployment counters and the phase duration histogram of `/metrics` from the bus:
 * every `deployment` event (the engine emits one per transition) re-reads that deployment and
 * observes what is new — its start, each phase that finished, its end. Each replica observes the
 * deployments it runs. Events keep coming after a deployment ended (the API and the engine both
 * announce changes), so ended ones stay remembered too. Bounded: the last `MAX_TRACKED`.
 */
import type { Phase } from '../../contracts/domain.js';
import type { Bus } from '../bus.js';
import type { Db } from '../store/db.js';

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
  private readonly onDeployment = (id: string) => void this.observe(id).catch(() => {});

  constructor(private readonly db: Db, private readonly bus: Bus, private readonly sink: DeploymentSink) {
    bus.on('deployment', this.onDeployment);
  }

  close(): void {
    this.bus.off('deployment', this.onDeployment);
  }

  async observe(id: string): Promise<void> {
    const row = (await this.db.query<{ kind: string; status: string; phases: Phase[] }>('select kind, status, phases from deployments where id = $1', [id]))[0];
    if (!row || row.status === 'pending') return;
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
