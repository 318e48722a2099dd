import { connectedHost } from '../../../operations/host-link.js';
import { ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import { ingressesOf, planManifests } from '../cluster-plans.js';
import { clusterStateOf } from './cluster-state.js';

/** ingress on a cluster: the plan's Ingress objects route the env; their hosts, as the agent reads
 *  them from the cluster, become the env's endpoints (seed 002: "ingress hosts discovered by the agent"). */
export const clusterIngress: PhaseDef = {
  name: 'ingress',
  async run(ctx) {
    const state = clusterStateOf(ctx.state);
    const manifests = (await planManifests(ctx.db, ctx.deployment.id)) ?? [];
    const ingresses = manifests.filter((m) => m.kind === 'Ingress');
    if (ingresses.length === 0) {
      state.endpoints = [];
      return skipped({ reason: 'the plan has no Ingress (no x-denv.edge hostnames, or the cluster has no ingress class)', endpoints: [] });
    }
    const host = await connectedHost(ctx, state.host, 'ingress');
    const res = await ctx.call(host, 'kube.status', { env: ctx.deployment.env, deployments: [], ingresses: ingressesOf(manifests) });
    // One endpoint per URL, named by the service its Ingress routes to.
    const serviceOf = new Map(ingresses.map((i) => [i.metadata.name, i.metadata.labels?.['denv.dev/service'] ?? i.metadata.name]));
    const endpoints = res.endpoints.map((url) => ({ service: serviceOf.size === 1 ? [...serviceOf.values()][0]! : serviceForUrl(url, ingresses) ?? 'ingress', url }));
    state.endpoints = endpoints;
    return ok({ endpoints, ingresses: ingressesOf(manifests) });
  },
};

function serviceForUrl(url: string, ingresses: readonly { metadata: { labels?: Readonly<Record<string, string>> }; spec?: unknown }[]): string | null {
  const hostname = new URL(url).hostname;
  for (const i of ingresses) {
    const rules = ((i.spec as { rules?: { host?: string }[] } | undefined)?.rules ?? []).map((r) => r.host);
    if (rules.includes(hostname)) return i.metadata.labels?.['denv.dev/service'] ?? null;
  }
  return null;
}
