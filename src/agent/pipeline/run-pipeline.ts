/**
 * The pipeline runner (seed 004; STYLE 3). One pipeline per service at a time: a deploy holds
 * the slot's lock (in-process queue + flock, across processes) from before it reads the slot's
 * record to after it writes it. The runner times every stage, records its report, turns a throw
 * into that stage's failure, applies the stage's failure mode, and decides the terminal state:
 *
 *   a stage says stop (idempotency)          → no_op
 *   a `fail` stage fails (admit, verify, pull, …) → failure; nothing has changed
 *   a `rollback` stage fails (recreate, health, persist) → restore the previous image and env
 *                                               → failure_rolled_back (failure if the restore fails)
 *   a `degrade` stage fails (proxy, dns)     → carry on; success_degraded at the end
 *   otherwise                                → success (preflight: preflight_ok)
 *
 * Every stage appears in the answer: those after the end are `skipped` with the reason.
 * One log line per pipeline; no stage logs, and nothing logged holds an env value.
 */
import type { PipelineAnswer, StageReport, TerminalState } from '../../contracts/envelope.js';
import { messageOf } from '../../contracts/errors.js';
import { slotFileKey, slotKey } from '../runtimes/docker/slot.js';
import type { PipelineHost } from './pipeline-host.js';
import { rollback } from './rollback.js';
import type { PipelineRequest, RunState, Stage, StageContext, StageOutcome } from './stage.js';
import { DEPLOY_STAGES, PREFLIGHT_STAGES } from './stages/index.js';

export interface PipelineRun extends PipelineAnswer {
  /** `<stage>: <detail>` of the stage that decided a failure; null otherwise. */
  readonly error: string | null;
  /** The container's last lines when health failed (for the caller's report, never for evidence). */
  readonly logTail: readonly string[] | null;
  /** The slot's host port when one is serving. */
  readonly port: number | null;
}

function freshState(): RunState {
  return {
    record: null,
    decoded: null,
    target: null,
    envHash: null,
    configHash: null,
    envFile: null,
    port: null,
    changed: false,
    deployed: null,
    edge: { proxy: { provider: 'none', status: 'skipped' }, dns: { provider: 'none', status: 'skipped' }, hostnames: [] },
    endpoint: null,
    logTail: null,
  };
}

async function runStage(stage: Stage, ctx: StageContext): Promise<StageOutcome> {
  try {
    return await stage.run(ctx);
  } catch (err) {
    return { status: 'failed', detail: messageOf(err) };
  }
}

async function runStages(host: PipelineHost, req: PipelineRequest, stages: readonly Stage[]): Promise<PipelineRun> {
  const state = freshState();
  const ctx: StageContext = { host, req, state };
  if (req.mode === 'deploy') state.record = await host.slots.read(req.slot);
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
      else if (stage.onFailure === 'fail' || !state.changed) {
        // A rollback stage that failed before Compose ran (recreate allocating its port) changed nothing either.
        terminal = 'failure';
        endedBy = `not run: ${stage.name} failed`;
      } else {
        const back = await rollback(ctx);
        evidence = { ...evidence, rollback: back.evidence };
        terminal = back.restored ? 'failure_rolled_back' : 'failure';
        endedBy = `not run: ${stage.name} failed${back.restored ? ', rolled back' : ', and the rollback failed'}`;
      }
      if (stage.onFailure !== 'degrade') error = `${stage.name}: ${out.detail}`;
    } else if (out.status === 'ok' && out.stop) {
      terminal = out.stop;
      endedBy = `not run: ${out.stop}`;
    }
    reports.push({ name: stage.name, status: out.status, ...(out.detail ? { detail: out.detail } : {}), took_ms: Date.now() - started, ...(evidence ? { evidence } : {}) });
  }
  const state_: TerminalState = terminal ?? (req.mode === 'preflight' ? 'preflight_ok' : degraded ? 'success_degraded' : 'success');
  return {
    state: state_,
    stages: reports,
    ...(state.endpoint ? { endpoint: state.endpoint } : {}),
    error,
    logTail: state.logTail,
    port: state.endpoint ? state.port ?? state.record?.current?.port ?? null : null,
  };
}

/** Run a deploy or a preflight for one slot; never throws for work that ran and failed. */
export async function runPipeline(host: PipelineHost, req: PipelineRequest): Promise<PipelineRun> {
  const started = Date.now();
  const stages = req.mode === 'deploy' ? DEPLOY_STAGES : PREFLIGHT_STAGES;
  // A preflight changes nothing, so it does not queue behind deploys of the same service.
  const result = req.mode === 'deploy' ? await host.locks.run(slotFileKey(req.slot), () => runStages(host, req, stages)) : await runStages(host, req, stages);
  const summary = result.stages.map((s) => `${s.name} ${s.status}`).join(', ');
  host.log(`${req.mode} ${slotKey(req.slot)}: ${result.state} in ${Date.now() - started} ms (${summary})${result.error ? ` — ${result.error}` : ''}`);
  return result;
}

/** The contract answer (DESIGN: `{state, stages, endpoint?}`), without the runner's extras. */
export function answerOf(run: PipelineRun): PipelineAnswer {
  return { state: run.state, stages: run.stages, ...(run.endpoint ? { endpoint: run.endpoint } : {}) };
}
