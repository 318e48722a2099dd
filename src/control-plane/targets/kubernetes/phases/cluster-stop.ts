import { connectedHost } from '../../../operations/host-link.js';
import { ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec.js';
import { deploymentsOf, imagesOf, inNamespace, planManifests, planNamespace, versionManifests, versionNamespace } from '../cluster-plans.js';
import { loadVersion } from '../../../operations/versions.js';
import { withImages, withReplicas } from '../plan/index.js';
import { lastAppliedPlan } from '../../applied-plans.js';

/**
 * stop on a cluster (seed 002): what runs is applied again with replicas 0 — the current version's
 * manifests, or, after a failed first deploy whose verdict could not delete what it applied (the
 * agent unreachable), those objects (their pods would otherwise go on crash-looping). The record, the plans and the PersistentVolumeClaims stay; start applies the
 * current version again as planned. Nothing is applied once a teardown has deleted the workload
 * (a stop asked while tearing down): that would make its objects again.
 */
export const clusterStop: PhaseDef = {
  name: 'stop',
  async run(ctx) {
    const env = await ctx.env();
    const tornDown = await ctx.db.query("select 1 from deployments where env = $1 and kind = 'destroy' and status = 'succeeded' limit 1", [env.id]);
    if (tornDown.length > 0) return skipped({ reason: 'the teardown deleted the workload; nothing to scale' });
    let manifests: KubeObject[] | null = null;
    let spec: Spec | null = null;
    let version: string | null = env.current_version;
    let namespace: string | null = null;
    if (env.current_version) {
      spec = (await loadVersion(ctx.db, env.current_version))?.spec ?? null;
      manifests = await versionManifests(ctx.db, env.current_version);
      namespace = await versionNamespace(ctx.db, env.current_version);
    } else {
      const last = await lastAppliedPlan(ctx, env.id);
      if (last) {
        manifests = await planManifests(ctx.db, last.deployment);
        namespace = await planNamespace(ctx.db, last.deployment);
        const rows = await ctx.db.query<{ id: string; spec: Spec }>('select id, spec from versions where deployment = $1', [last.deployment]);
        spec = rows[0]?.spec ?? null;
        version = rows[0]?.id ?? null;
      }
    }
    if (!manifests || !spec || !version) return skipped({ reason: 'nothing was applied to the cluster' });
    const host = await connectedHost(ctx, env.host, 'stop');
    const scaled = withReplicas(withImages(manifests, imagesOf(spec)), 0);
    const res = await ctx.call(host, 'kube.apply', { env: env.id, version, manifests: scaled, ...inNamespace(namespace) });
    return ok({ host, version, scaled_to_zero: deploymentsOf(scaled), applied: res.applied });
  },
};
