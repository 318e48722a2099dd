/**
 * Rollback of a process service's failed recreate, health or persist: stop the process this run
 * started (or adopted before it was ever healthy) and give back its port — to its old copy when it
 * had taken that over. A service started beside the version that serves leaves that version
 * serving: restored. A stop-first update had stopped its old copy; the deploy's own rollback
 * (env.rollback from the control plane) starts it again, so here it is not restored.
 */
import type { RollbackResult } from '../../pipeline/stage-runner.js';
import { readLogTail } from '../../../lib/log-tail.js';
import { serviceKey } from '../../runtimes/process/service-env.js';
import { stopServices } from '../stop-services.js';
import type { ProcessStageContext } from './stage.js';

export async function rollbackService({ run, service }: ProcessStageContext): Promise<RollbackResult> {
  const agent = run.ctx;
  const rec = agent.runtime.get(service.id);
  const pid = rec?.pid ?? null;
  if (rec) service.logTail = await readLogTail(rec.log_path, rec.log_offset);
  if (service.takeover) await agent.ports.transfer(serviceKey(service.id), serviceKey(service.takeover));
  const stopped = service.owned ? await stopServices(agent, [service.id]) : 0;
  service.owned = false;
  const restored = service.downSince === null;
  return {
    restored,
    ...(restored ? {} : { summary: "stopped; its old copy (stopped for a stop-first update) starts again with the deploy's rollback" }),
    evidence: {
      stopped: stopped > 0 ? pid : null,
      previous: restored ? 'untouched: the new process started beside it' : `stopped for a stop-first update (version ${service.takeover?.version ?? '?'}): the deploy's rollback starts it again`,
    },
  };
}
