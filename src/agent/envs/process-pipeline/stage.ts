/**
 * What a process service's pipeline stage works on: the version's shared run and this service's
 * state (version-run.ts). Stages are one file each under stages/, listed in stages/index.ts.
 */
import { messageOf } from '../../../contracts/errors.js';
import { failed, type RunnerStage, type StageOutcome } from '../../pipeline/stage-runner.js';
import type { Failure } from '../version-request.js';
import type { ServiceRun, VersionRun } from './version-run.js';

export interface ProcessStageContext {
  readonly run: VersionRun;
  readonly service: ServiceRun;
}

export type ProcessStage = RunnerStage<ProcessStageContext>;

/**
 * This service's failure, one that decides the version's outcome: recorded on the run (the
 * version fails with it) and returned as the stage's outcome. `message` is the version-level
 * message when it is not `<service>: <detail>`.
 */
export function refuse(ctx: ProcessStageContext, detail: string, o: { readonly outcome?: Failure['outcome']; readonly message?: string; readonly evidence?: Record<string, unknown> } = {}): StageOutcome {
  ctx.run.fail(ctx.service.name, o.outcome ?? 'start_failed', o.message ?? `${ctx.service.name}: ${detail}`);
  return failed(detail, o.evidence);
}

/**
 * `stage`, with a throw turned into this service's failure, recorded like any other: the runner
 * would report the stage failed, but the version would not know, and keep the other services.
 */
export function recordingThrows(stage: ProcessStage): ProcessStage {
  return {
    name: stage.name,
    onFailure: stage.onFailure,
    async run(ctx) {
      try {
        return await stage.run(ctx);
      } catch (err) {
        return refuse(ctx, messageOf(err));
      }
    },
  };
}

/** How an adopted service's process came to run, for skip reasons. */
export function adoptedText(service: ServiceRun): string {
  if (!service.adopted) return '';
  return service.adopted.from ? `the identical copy of version ${service.adopted.from} was adopted` : 'its process is already running';
}
