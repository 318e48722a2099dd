/**
 * recreate (seed 004, stage 6) for a process service: once every service of the version is
 * prepared and its `depends_on` conditions hold, spawn it beside the version that serves (a
 * stop-first service stops its old copy first, on the same port). A process still starting from
 * an earlier delivery is adopted, not spawned again. A failure to spawn rolls back.
 */
import { ok, failed } from '../../../pipeline/stage-runner.js';
import { serviceKey } from '../../../runtimes/process/service-env.js';
import { dependenciesOf, updateOrder } from '../../start-order.js';
import { stopOldCopies } from '../other-copies.js';
import { refuse, type ProcessStage } from '../stage.js';

const CONDITION_TEXT = { service_started: 'did not start', service_healthy: 'did not become healthy', service_completed_successfully: 'did not complete successfully' } as const;

export const recreate: ProcessStage = {
  name: 'recreate',
  onFailure: 'rollback',
  async run(ctx) {
    const { run, service } = ctx;
    const agent = run.ctx;
    const refusal = await run.everyonePrepared();
    // Follows from another service's failure: not this service's, so not recorded as one.
    if (refusal) return failed(`not started: ${refusal.service} was refused before the version started`);
    for (const [dep, d] of dependenciesOf(run.req.services, service.name)) {
      const held = d.condition === 'service_started' ? await run.whenStarted(dep) : await run.whenHealthy(dep);
      if (!held && d.required) return refuse(ctx, `not started: ${dep} ${CONDITION_TEXT[d.condition]}`);
    }
    if (service.adopted) {
      run.markStarted(service.name, true);
      return ok(`adopted its running process (pid ${agent.runtime.get(service.id)?.pid ?? '?'})`);
    }
    const plan = service.plan!;
    service.owned = true;
    const stopFirst = updateOrder(service.spec) === 'stop-first' || service.takeover !== null;
    service.downSince = stopFirst ? await stopOldCopies(agent, run.req.env, run.req.version, service.name) : null;
    if (service.takeover) await agent.ports.transfer(serviceKey(service.takeover), serviceKey(service.id));
    const started = await agent.runtime.start({
      ...service.id,
      spec: service.spec,
      port: plan.port,
      datasets: run.datasets,
      identity: plan.identity,
      pidNamespace: plan.pidNamespace,
      siblings: { ...run.siblings(), ...plan.grants },
      cwd: plan.cwd,
      home: plan.home,
    });
    if (!started.ok) return refuse(ctx, started.message);
    run.markStarted(service.name, true);
    const pid = agent.runtime.get(service.id)?.pid ?? null;
    return ok(`pid ${pid} on port ${plan.port}${service.downSince !== null ? ' (stop-first: its old copy was stopped)' : ''}`, { pid, port: plan.port, stop_first: service.downSince !== null });
  },
};
