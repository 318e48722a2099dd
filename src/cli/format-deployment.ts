/**
 * Pure rendering of deployments and their phases for `deployment watch`, `deployment show`,
 * `deploy --watch` and `dev`:
 *
 *   deploy dep_3f… on env_9a…
 *     ✓ resolve      12 ms  version=ver_… number=1 services=web volumes=[]
 *     – provision           reason="host already placed"
 *     ✓ prepare     412 ms  endpoints=web→http://127.0.0.1:20001
 *   succeeded in 1.9 s
 */
import type { Deployment, DeploymentStatus, Phase } from '../contracts/domain.js';
import { summarizeEvidence } from './evidence.js';
import { STATUS_SYMBOLS, elapsedMs, formatDuration, formatFields } from './output.js';

export const TERMINAL_STATUSES: readonly DeploymentStatus[] = ['succeeded', 'failed', 'rolled_back'];

export function isTerminal(status: DeploymentStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function phaseNameWidth(phases: readonly Phase[]): number {
  return Math.max(0, ...phases.map((p) => p.name.length));
}

/** `  ✓ prepare   412 ms  endpoints=web→http://127.0.0.1:20001`; no duration until the phase ends. */
export function formatPhaseLine(phase: Phase, nameWidth: number): string {
  const symbol = STATUS_SYMBOLS[phase.status] ?? '?';
  const ms = phase.status === 'running' ? null : elapsedMs(phase.started_at, phase.finished_at);
  const duration = ms === null ? '' : formatDuration(ms);
  const summary = phase.status === 'running' || phase.status === 'pending' ? '' : summarizeEvidence(phase.evidence);
  return `  ${symbol} ${phase.name.padEnd(nameWidth)} ${duration.padStart(8)}  ${summary}`.trimEnd();
}

export function formatHeader(d: Deployment): string {
  return `${d.kind} ${d.id} on ${d.env}`;
}

/** `succeeded in 1.9 s`, `rolled_back in 5.0 s: prepare: health check failed`. */
export function formatOutcome(d: Deployment): string {
  const ms = elapsedMs(d.created_at, d.finished_at);
  const took = ms === null ? '' : ` in ${formatDuration(ms)}`;
  return `${d.status}${took}${d.error ? `: ${d.error}` : ''}`;
}

/**
 * Tracks what has been printed so each phase is printed when its status changes (a phase that
 * moved from pending to done between two updates prints once, as done). Feed it every update,
 * duplicates included; it returns the lines to print.
 *
 * A phase's `running` line is held back until it has been running for `runningAfterMs` (by the
 * `now` passed in), so fast phases print one line and slow ones (join, prepare) still show that
 * something is happening; call `tick` periodically to release those lines.
 */
export class PhaseProgress {
  private readonly printed = new Map<string, Phase['status']>();
  private readonly runningSince = new Map<string, number>();
  private last: Deployment | null = null;

  constructor(private readonly runningAfterMs = 0) {}

  update(d: Deployment, now: number): string[] {
    const lines = this.last === null ? [formatHeader(d)] : [];
    this.last = d;
    const width = phaseNameWidth(d.phases);
    for (const phase of d.phases) {
      if (phase.status === 'pending' || this.printed.get(phase.name) === phase.status) continue;
      if (phase.status === 'running') {
        if (!this.runningSince.has(phase.name)) this.runningSince.set(phase.name, now);
        if (now - this.runningSince.get(phase.name)! < this.runningAfterMs) continue;
      }
      this.printed.set(phase.name, phase.status);
      lines.push(formatPhaseLine(phase, width));
    }
    return lines;
  }

  /** Lines for phases that have now been running long enough to be shown. */
  tick(now: number): string[] {
    return this.last === null ? [] : this.update(this.last, now);
  }
}

/** The full picture for `deployment show`. */
export function formatDeploymentDetail(d: Deployment): string {
  const fields: [string, string][] = [
    ['id', d.id],
    ['kind', d.kind],
    ['env', d.env],
    ['status', d.status],
    ['created', d.created_at],
    ['finished', d.finished_at ?? '—'],
  ];
  const ms = elapsedMs(d.created_at, d.finished_at);
  if (ms !== null) fields.push(['took', formatDuration(ms)]);
  if (d.error) fields.push(['error', d.error]);
  if (d.waiting) fields.push(['waiting for', d.waiting]);
  const width = phaseNameWidth(d.phases);
  return [formatFields(fields), '', 'phases:', ...d.phases.map((p) => formatPhaseLine(p, width))].join('\n');
}
