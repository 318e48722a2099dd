import { connectedHost } from '../../../operations/host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../../../operations/phase.js';
import { paramsOf } from '../../../operations/deploy/state.js';
import { imagesOf, inNamespace, planManifests, planNamespace } from '../cluster-plans.js';
import { withImages } from '../plan/index.js';
import { clusterStateOf } from './cluster-state.js';

/** prepare on a cluster (seed 002 dispatch): `kube.apply` of the approved plan's manifests with the
 *  spec's images patched in — server-side apply, field manager `denv`. Re-run safe: the same command
 *  id is answered from the agent's record, and applying the same manifests again changes nothing. */
export const clusterPrepare: PhaseDef = {
  name: 'prepare',
  async run(ctx) {
    const state = clusterStateOf(ctx.state);
    const manifests = await planManifests(ctx.db, ctx.deployment.id);
    if (!manifests) throw new PhaseFailed('no approved plan for this deploy');
    const host = await connectedHost(ctx, state.host, 'prepare');
    const patched = withImages(manifests, imagesOf(paramsOf(ctx.deployment.params).spec));
    const namespace = inNamespace(await planNamespace(ctx.db, ctx.deployment.id));
    const res = await ctx.call(host, 'kube.apply', { env: ctx.deployment.env, version: state.version!, manifests: patched, ...namespace });
    state.applied = res.applied;
    return ok({ host, namespace: res.namespace, applied: res.applied });
  },
};
