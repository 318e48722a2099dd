/**
 * persist (seed 004, stage 10) for a process service: once every service of the version passed
 * health, record it as healthy (what the agent adopts after a restart and a rollback may reuse).
 * If another service of the version failed, this one is not kept: it rolls back, so a version
 * runs whole or not at all.
 */
import { ok, failed } from '../../../pipeline/stage-runner.js';
import type { ProcessStage } from '../stage.js';

export const persist: ProcessStage = {
  name: 'persist',
  onFailure: 'rollback',
  async run({ run, service }) {
    const failures = await run.everyoneChecked();
    // Follows from another service's failure: not recorded as this one's.
    if (failures.length > 0) return failed(`not kept: ${[...new Set(failures.map((f) => f.service))].join(', ')} failed`);
    if (service.owned) await run.ctx.runtime.markHealthy(service.id);
    return ok(undefined, { pid: run.ctx.runtime.get(service.id)?.pid ?? null, port: run.portOf(service.name) });
  },
};
