/**
 * The stage runner every per-service pipeline goes through (seed 004; DESIGN §7): image services
 * (run-pipeline.ts, stages/) and process services (envs/process-pipeline/) alike. It runs the
 * stages in order, times each, turns a throw into that stage's failure, applies the stage's
 * failure mode and decides the terminal state:
 *
 *   a stage says stop (idempotency)               → no_op
 *   a `fail` stage fails (admit, verify, pull, …)  → failure; nothing has changed
 *   a `rollback` stage fails (recreate, health, persist) → the pipeline's rollback
 *                                                    → failure_rolled_back (failure if it could not restore)
 *   a `degrade` stage fails (proxy, dns)          → carry on; success_degraded at the end
 *   otherwise                                     → success (preflight: preflight_ok)
 *
 * Every stage appears in the answer: those after the end are `skipped` with the reason. What a
 * stage works on (`C`) is the pipeline's own; the runner never looks inside it.
 */
import type { StageName, StageReport, TerminalState } from '../../contracts/envelope.js';
import { messageOf } from '../../contracts/errors.js';

export type StageOutcome =
  /** `stop` ends the pipeline here with that terminal state (idempotency → no_op). */
  | { readonly status: 'ok'; readonly detail?: string; readonly evidence?: Record<string, unknown>; readonly stop?: 'no_op' }
  | { readonly status: 'skipped'; readonly detail: string; readonly evidence?: Record<string, unknown> }
  | { readonly status: 'failed'; readonly detail: string; readonly evidence?: Record<string, unknown> };

/**
 * What a failure of the stage means:
 *   `fail`     hard gate: nothing has changed; the pipeline ends in `failure`
 *   `rollback` something changed: restore what ran before; ends in `failure_rolled_back`
 *   `degrade`  best effort (edge): carry on; the pipeline ends in `success_degraded`
 */
export type FailureMode = 'fail' | 'rollback' | 'degrade';

export interface RunnerStage<C> {
  readonly name: StageName;
  readonly onFailure: FailureMode;
  run(ctx: C): Promise<StageOutcome>;
}

export interface RollbackResult {
  readonly restored: boolean;
  readonly evidence: Record<string, unknown>;
  /** What the later stages' skip reason says happened, when not "rolled back" / "the rollback failed". */
  readonly summary?: string;
}

export interface RunnerHooks<C> {
  readonly mode: 'deploy' | 'preflight';
  /** Whether the host has changed yet: a `rollback` stage failing before that changed nothing. */
  changed(ctx: C): boolean;
  rollback(ctx: C): Promise<RollbackResult>;
}

export interface StagesRun {
  readonly state: TerminalState;
  readonly stages: StageReport[];
  /** `<stage>: <detail>` of the stage that decided a failure; null otherwise. */
  readonly error: string | null;
}

async function runStage<C>(stage: RunnerStage<C>, ctx: C): Promise<StageOutcome> {
  try {
    return await stage.run(ctx);
  } catch (err) {
    return { status: 'failed', detail: messageOf(err) };
  }
}

export async function runStageList<C>(stages: readonly RunnerStage<C>[], ctx: C, hooks: RunnerHooks<C>): Promise<StagesRun> {
  const reports: StageReport[] = [];
  let terminal: TerminalState | null = null;
  let endedBy = '';
  let error: string | null = null;
  let degraded = false;
  for (const stage of stages) {
    if (terminal !== null) {
      reports.push({ name: stage.name, status: 'skipped', detail: endedBy, took_ms: 0 });
      continue;
    }
    const started = Date.now();
    const out = await runStage(stage, ctx);
    let evidence = out.evidence;
    if (out.status === 'failed') {
      if (stage.onFailure === 'degrade') degraded = true;
      else if (stage.onFailure === 'fail' || !hooks.changed(ctx)) {
        // A rollback stage that failed before anything changed (recreate allocating its port) changed nothing either.
        terminal = 'failure';
        endedBy = `not run: ${stage.name} failed`;
      } else {
        const back = await hooks.rollback(ctx);
        evidence = { ...evidence, rollback: back.evidence };
        terminal = back.restored ? 'failure_rolled_back' : 'failure';
        endedBy = `not run: ${stage.name} failed, ${back.summary ?? (back.restored ? 'rolled back' : 'and the rollback failed')}`;
      }
      if (stage.onFailure !== 'degrade') error = `${stage.name}: ${out.detail}`;
    } else if (out.status === 'ok' && out.stop) {
      terminal = out.stop;
      endedBy = `not run: ${out.stop}`;
    }
    reports.push({ name: stage.name, status: out.status, ...(out.detail ? { detail: out.detail } : {}), took_ms: Date.now() - started, ...(evidence ? { evidence } : {}) });
  }
  return { state: terminal ?? (hooks.mode === 'preflight' ? 'preflight_ok' : degraded ? 'success_degraded' : 'success'), stages: reports, error };
}

export const ok = (detail?: string, evidence?: Record<string, unknown>): StageOutcome => ({ status: 'ok', ...(detail ? { detail } : {}), ...(evidence ? { evidence } : {}) });
export const failed = (detail: string, evidence?: Record<string, unknown>): StageOutcome => ({ status: 'failed', detail, ...(evidence ? { evidence } : {}) });
export const skipped = (detail: string, evidence?: Record<string, unknown>): StageOutcome => ({ status: 'skipped', detail, ...(evidence ? { evidence } : {}) });
