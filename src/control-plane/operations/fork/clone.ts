import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion, publicEndpoints } from '../versions.js';
import { cloneOnHost } from './clone-env.js';
import { paramsOf, stateOf } from './state.js';

/** env.fork on the source's host: datasets forked from the snapshot, services started with fresh
 *  ports. A service that does not start fails here; one that starts but is unhealthy fails `health`. */
export const clone: PhaseDef = {
  name: 'clone',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const source = (await loadVersion(ctx.db, paramsOf(ctx.deployment.params).version))!;
    const res = await cloneOnHost(ctx, state.host!, source, ctx.deployment.env);
    state.clone = res;
    const evidence = { forked_in_ms: res.forked_in_ms, from: res.from, from_version: source.id, datasets: res.datasets, started_in_ms: res.started_in_ms, endpoints: publicEndpoints(res) };
    if (res.outcome === 'start_failed') throw new PhaseFailed(res.message ?? 'a service did not start', { ...evidence, services: res.services });
    return ok(evidence);
  },
};
