import { connectedHost } from '../../../operations/host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../../../operations/phase.js';
import { planManifests } from '../cluster-plans.js';
import { clusterStateOf } from './cluster-state.js';
import { waitRollout } from './rollout.js';

/** start on a cluster (deploy kind): the rollout of what prepare applied, until its replicas are ready. */
export const clusterRollout: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const state = clusterStateOf(ctx.state);
    const manifests = await planManifests(ctx.db, ctx.deployment.id);
    if (!manifests) throw new PhaseFailed('no approved plan for this deploy');
    const host = await connectedHost(ctx, state.host, 'start');
    const { workloads, waited_ms } = await waitRollout(ctx, host, manifests);
    state.workloads = workloads;
    return ok({ workloads, waited_ms });
  },
};
