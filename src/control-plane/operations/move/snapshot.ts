import { ok, skipped, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { moveSnapshotName, stateOf } from './state.js';

/**
 * A consistent snapshot of the env's datasets on the host it leaves (env.snapshot: services paused
 * for the copy, then resumed: the env keeps serving while its data travels). Writes made after it
 * stay behind (docs/clouds.md says so). Skipped when the version has no dataset.
 * Evidence: {snapshot, datasets, frozen_for, consistent}.
 */
export const snapshot: PhaseDef = {
  name: 'snapshot',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const version = (await loadVersion(ctx.db, state.version!))!;
    if (version.spec.volumes.length === 0) {
      state.snapshot = null;
      return skipped({ reason: 'the version has no dataset: nothing to carry' });
    }
    const res = await ctx.call(state.from!, 'env.snapshot', { env: ctx.deployment.env, name: moveSnapshotName(ctx.deployment.id), volumes: [...version.spec.volumes] });
    state.snapshot = res;
    return ok({ snapshot: res.snapshot, datasets: res.datasets, frozen_for: res.frozen_for, consistent: res.consistent });
  },
};
