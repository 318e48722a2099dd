/**
 * health (seed 004, stage 7) for a process service: its healthcheck (or `x-denv.health`) until it
 * passes, or for a one-shot its exit 0. Before the edge, as for images. A failure rolls back.
 */
import { ok } from '../../../pipeline/stage-runner.js';
import { waitHealthy } from '../../../health/wait-healthy.js';
import { waitCompleted } from '../../wait-completed.js';
import { refuse, type ProcessStage } from '../stage.js';

export const health: ProcessStage = {
  name: 'health',
  onFailure: 'rollback',
  async run(ctx) {
    const { run, service } = ctx;
    const agent = run.ctx;
    const started = Date.now();
    try {
      const rec = agent.runtime.get(service.id)!;
      const { cwd, env, prefix } = agent.runtime.contextOf(rec);
      const target = { service: service.name, port: rec.port, cwd, env, prefix, exitOf: () => agent.runtime.exitOf(service.id) };
      const oneShot = run.shots.has(service.name);
      const verdict = oneShot ? await waitCompleted(target) : await waitHealthy(service.spec.health, target);
      run.markHealthy(service.name, verdict.ok);
      if (!verdict.ok) {
        const named = `${service.name}: `;
        const detail = verdict.message.startsWith(named) ? verdict.message.slice(named.length) : verdict.message;
        return refuse(ctx, detail, { outcome: verdict.outcome, message: verdict.message });
      }
      if (service.downSince !== null) run.updates[service.name] = { order: 'stop-first', down_ms: Date.now() - service.downSince };
      return ok(oneShot ? 'completed (exit 0)' : `healthy (${service.spec.health.kind})`, { took_ms: Date.now() - started, ...(service.downSince !== null ? { down_ms: Date.now() - service.downSince } : {}) });
    } finally {
      run.checked(service.name);
    }
  },
};
