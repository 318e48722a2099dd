import { connectedHost } from '../host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { activateVersion, loadVersion } from '../versions.js';
import { paramsOf, stateOf } from './state.js';
import { snapshotPrunedAt } from '../../store/snapshot-retention.js';

/**
 * env.rollback with data: the agent stops every service of the env, replaces each dataset by
 * the version's snapshot, and starts the version's services. Fails at once (with the host's
 * reconnect grace) when the host is not connected. Re-run safe: the command is the same id.
 */
export const restore: PhaseDef = {
  name: 'restore',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    if (state.previous_version === undefined) state.previous_version = env.current_version;
    const version = await loadVersion(ctx.db, paramsOf(ctx.deployment.params).version);
    if (!version?.snapshot) throw new PhaseFailed('the version has no snapshot to restore');
    if (await snapshotPrunedAt(ctx.db, version.id)) throw new PhaseFailed('the version\'s snapshot was pruned', { snapshot: version.snapshot, pruned: true });
    const host = await connectedHost(ctx, env.host, 'restore');
    const res = await activateVersion(ctx, host, version, { restoreData: true });
    state.restore = res;
    if (res.restored === null) throw new PhaseFailed('the host restored no snapshot', { snapshot: null });
    return ok({ snapshot: res.restored, datasets: version.spec.volumes, outcome: res.outcome });
  },
};
