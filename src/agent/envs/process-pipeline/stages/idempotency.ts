/**
 * idempotency (seed 004, stage 3) for a process service: this version's own process already
 * running and healthy (an earlier delivery of the command, a previous agent), or an identical
 * copy of another version adopted for it (rollback, start) → stop with `no_op`. A process still
 * starting from an earlier delivery is adopted and health-checked, never started twice.
 */
import { ok } from '../../../pipeline/stage-runner.js';
import { liveOldCopy } from '../other-copies.js';
import type { ProcessStage } from '../stage.js';

export const idempotency: ProcessStage = {
  name: 'idempotency',
  onFailure: 'fail',
  async run({ run, service }) {
    const rec = run.ctx.runtime.get(service.id);
    const pid = rec?.pid ?? null;
    if (service.adopted?.as === 'healthy') {
      const detail = service.adopted.from ? `the identical copy of version ${service.adopted.from} runs: adopted` : "this version's process runs and is healthy";
      return { status: 'ok', detail, evidence: { pid, port: run.portOf(service.name), ...(service.adopted.from ? { adopted_from: service.adopted.from } : {}) }, stop: 'no_op' };
    }
    if (service.adopted?.as === 'starting') return ok("this version's process from an earlier delivery runs: checking its health", { pid });
    const old = await liveOldCopy(run.ctx, run.req.env, run.req.version, service.name);
    service.oldCopy = old;
    return ok(old ? `replaces version ${old.version}'s copy` : 'first start of this service in this env', { previous_version: old?.version ?? null });
  },
};
