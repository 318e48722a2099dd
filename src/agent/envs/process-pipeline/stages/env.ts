/**
 * env (seed 004, stage 5) for a process service: everything it needs before it is spawned
 * (prepare-service.ts: its user, working dir — in a source deploy, inside the commit's checkout,
 * fetched here when the host lacks it —, datasets, secret and config files, its port). A
 * service updated stop-first, or published on a fixed host port, takes over its old copy's port.
 * The version's services are prepared one at a time (user creation edits /etc/passwd) and none
 * starts before all are (version-run.ts). Hard gate: a refusal starts nothing.
 */
import { ok, skipped } from '../../../pipeline/stage-runner.js';
import { serviceKey } from '../../../runtimes/process/service-env.js';
import { messageOf } from '../../../../contracts/errors.js';
import { prepareService } from '../../prepare-service.js';
import { ensureCheckout } from '../../source-checkout.js';
import { BuildFailed } from '../../source-build.js';
import { updateOrder } from '../../start-order.js';
import { adoptedText, refuse, type ProcessStage } from '../stage.js';

export const env: ProcessStage = {
  name: 'env',
  onFailure: 'fail',
  async run(ctx) {
    const { run, service } = ctx;
    try {
      if (service.adopted) return skipped(`${adoptedText(service)}: prepared when it started`);
      const { ctx: agent, req } = run;
      return await run.preparing.run(async () => {
        const checkout = req.source ? { dir: await ensureCheckout(agent, service.id.env, req.source), commit: req.source.commit } : null;
        let plan = await prepareService(agent, service.id, service.spec, run.datasets, req.files, checkout);
        if (updateOrder(service.spec) === 'stop-first' || plan.fixedPort) {
          // Clients keep their address: the only interruption is the stop-to-healthy window.
          const old = service.oldCopy;
          if (old) {
            await agent.ports.release(serviceKey(service.id));
            plan = { ...plan, port: old.port };
            service.takeover = old;
          }
        }
        service.plan = plan;
        const built = plan.build ? `; build ${plan.build.cached ? 'cached' : `ran in ${plan.build.took_ms} ms`}` : '';
        return ok(`port ${plan.port}${service.takeover ? ` (taken over from version ${service.takeover.version})` : ''}${built}`, {
          port: plan.port,
          user: plan.identity ? plan.identity.name ?? plan.identity.uid : null,
          pid_namespace: plan.pidNamespace,
          files: Object.keys(plan.grants).length,
          ...(req.source ? { source: { commit: req.source.commit, cwd: plan.cwd } } : {}),
          ...(plan.build ? { build: { command: plan.build.command, cached: plan.build.cached, took_ms: plan.build.took_ms } } : {}),
        });
      });
    } catch (err) {
      // Any error (EACCES, ENOSPC, a path the host does not allow) refuses the version; a failed
      // build says so in its evidence (the control plane's prepare fails on it).
      return refuse(ctx, messageOf(err), err instanceof BuildFailed ? { evidence: { build: { command: err.command, failed: true } } } : {});
    } finally {
      run.prepared(service.name);
    }
  },
};
