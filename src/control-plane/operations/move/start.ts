import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { activateVersion, loadVersion, publicEndpoints } from '../versions.js';
import { stateOf } from './state.js';

/** The env's version started on the new host, on the datasets the transfer made there (env.rollback
 *  without restoring: the import already did). A service that does not start fails here; one that
 *  starts but is unhealthy fails `health`. Evidence: {host, endpoints, started_in_ms}. */
export const start: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const version = (await loadVersion(ctx.db, state.version!))!;
    const res = await activateVersion(ctx, state.to!, { id: version.id, spec: version.spec, snapshot: null }, { restoreData: false, key: 'move' });
    state.started = res;
    const evidence = { host: state.to, endpoints: publicEndpoints(res), started_in_ms: res.started_in_ms };
    if (res.outcome === 'start_failed') throw new PhaseFailed(res.message ?? 'a service did not start', { ...evidence, services: res.services });
    return ok(evidence);
  },
};
