import { connectedHost } from '../../../operations/host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../../../operations/phase.js';
import { loadVersion } from '../../../operations/versions.js';
import { imagesOf, inNamespace, versionManifests, versionNamespace } from '../cluster-plans.js';
import { withImages } from '../plan/index.js';
import { waitRollout } from './rollout.js';

/** start on a cluster (seed 002): the stored manifests applied again at their planned replica counts —
 *  the same idempotent apply as a deploy. */
export const clusterStartApply: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.current_version) throw new PhaseFailed('the env has no current version to start');
    const version = await loadVersion(ctx.db, env.current_version);
    const manifests = await versionManifests(ctx.db, env.current_version);
    if (!version || !manifests) throw new PhaseFailed(`version ${env.current_version} has no stored plan`);
    const host = await connectedHost(ctx, env.host, 'start');
    const patched = withImages(manifests, imagesOf(version.spec));
    const res = await ctx.call(host, 'kube.apply', { env: env.id, version: version.id, manifests: patched, ...inNamespace(await versionNamespace(ctx.db, version.id)) });
    ctx.state.manifests_applied = res.applied;
    return ok({ host, version: version.id, applied: res.applied });
  },
};

/** health of a cluster start: the rollout of the re-applied manifests. */
export const clusterStartHealth: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const env = await ctx.env();
    const manifests = (await versionManifests(ctx.db, env.current_version!)) ?? [];
    const host = await connectedHost(ctx, env.host, 'health');
    const { workloads, waited_ms } = await waitRollout(ctx, host, manifests);
    return ok({ workloads, waited_ms });
  },
};
