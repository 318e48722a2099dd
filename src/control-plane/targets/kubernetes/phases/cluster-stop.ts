import { connectedHost } from '../../../operations/host-link.js';
import { PhaseFailed, ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import { imagesOf, versionManifests, deploymentsOf } from '../cluster-plans.js';
import { loadVersion } from '../../../operations/versions.js';
import { withImages, withReplicas } from '../plan/index.js';

/** stop on a cluster (seed 002): the current version's manifests applied with replicas 0. The
 *  record, the plan and the PersistentVolumeClaims stay; start applies them again as planned. */
export const clusterStop: PhaseDef = {
  name: 'stop',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.current_version) return skipped({ reason: 'no version running on the cluster' });
    const version = await loadVersion(ctx.db, env.current_version);
    const manifests = await versionManifests(ctx.db, env.current_version);
    if (!version || !manifests) throw new PhaseFailed(`version ${env.current_version} has no stored plan`);
    const host = await connectedHost(ctx, env.host, 'stop');
    const scaled = withReplicas(withImages(manifests, imagesOf(version.spec)), 0);
    const res = await ctx.call(host, 'kube.apply', { env: env.id, version: version.id, manifests: scaled });
    return ok({ host, scaled_to_zero: deploymentsOf(scaled), applied: res.applied });
  },
};
