/**
 * An image service's pipeline (seed 004; STYLE 3). One pipeline per service at a time: a deploy
 * holds the slot's lock (in-process queue + flock, across processes) from before it reads the
 * slot's record to after it writes it. The stages run through stage-runner.ts (timing, failure
 * modes, terminal states), with the slot's rollback (rollback.ts). One log line per pipeline; no
 * stage logs, and nothing logged holds an env value.
 */
import type { PipelineAnswer } from '../../contracts/envelope.js';
import { slotFileKey, slotKey } from '../runtimes/docker/slot.js';
import type { PipelineHost } from './pipeline-host.js';
import { rollback } from './rollback.js';
import type { PipelineRequest, RunState, Stage, StageContext } from './stage.js';
import { runStageList } from './stage-runner.js';
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

async function runStages(host: PipelineHost, req: PipelineRequest, stages: readonly Stage[]): Promise<PipelineRun> {
  const state = freshState();
  const ctx: StageContext = { host, req, state };
  if (req.mode === 'deploy') state.record = await host.slots.read(req.slot);
  const run = await runStageList(stages, ctx, { mode: req.mode, changed: (c) => c.state.changed, rollback });
  return {
    ...run,
    ...(state.endpoint ? { endpoint: state.endpoint } : {}),
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
