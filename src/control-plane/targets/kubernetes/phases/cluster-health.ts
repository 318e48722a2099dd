import { ok, type PhaseDef } from '../../../operations/phase.js';
import { clusterStateOf } from './cluster-state.js';

/** health on a cluster: the readiness probes the plan set gate the rollout `start` waited for; this
 *  phase records each workload's ready/desired replicas, images and pods as the evidence. */
export const clusterHealth: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const workloads = clusterStateOf(ctx.state).workloads ?? [];
    return ok({ healthy: true, workloads: workloads.map((w) => ({ name: w.name, service: w.service, desired: w.desired, ready: w.ready, images: w.images })) });
  },
};
