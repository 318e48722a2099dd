/**
 * health (seed 004, stage 7): the exposure gate. The new container must answer over loopback
 * (its HTTP path, its Docker healthcheck, or staying up) before the edge points anything at it.
 * A failure rolls back to the previous image and env.
 */
import { waitContainerHealthy } from '../../runtimes/docker/container-health.js';
import { endpointOf } from '../slot-plan.js';
import { failed, ok, type Stage } from '../stage.js';

export const health: Stage = {
  name: 'health',
  onFailure: 'rollback',
  async run({ host, req, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const deployed = state.deployed!;
    const started = Date.now();
    const project = host.slots.projectOf(req.slot);
    const verdict = await waitContainerHealthy(deployed.health, { docker, project, service: req.slot.service, port: deployed.port });
    const evidence = { kind: deployed.health.kind, port: deployed.port, healthy_in_ms: Date.now() - started };
    if (!verdict.ok) {
      const container = await docker.container(project, req.slot.service);
      state.logTail = container ? await docker.logs(container.id) : null;
      return failed(verdict.message, { ...evidence, outcome: verdict.outcome });
    }
    state.endpoint = endpointOf(deployed.port);
    return ok(undefined, evidence);
  },
};
