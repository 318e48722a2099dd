import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, ClusterOptions } from './cluster.js';
import { clusterClients } from './cluster-clients.js';
import { applyManifests } from './apply-manifests.js';
import { inspectDeployments } from './inspect-deployments.js';
import { listEnv } from './list-env.js';
import { readEndpoints } from './read-endpoints.js';
import { readFacts } from './read-facts.js';
import { readLogs } from './read-logs.js';
import { readObjects } from './read-objects.js';
import { removeObjects } from './remove-objects.js';
import { waitReady } from './wait-ready.js';

export type { Cluster, ClusterOptions } from './cluster.js';

/**
 * The cluster the kubeconfig names (`o.kubeconfig`, else `KUBECONFIG`, ~/.kube/config, or the
 * in-cluster service account), in `o.namespace`, else the context's namespace, else `default`.
 * Nothing is contacted yet: a wrong address or token shows at the first call. Throws when the
 * kubeconfig cannot be read or names no cluster, or when there is none at all.
 */
export function openCluster(o: ClusterOptions): Cluster {
  const kc = new KubeConfig();
  if (o.kubeconfig !== undefined) kc.loadFromFile(o.kubeconfig);
  else {
    kc.loadFromDefault();
    // With no kubeconfig and no service account, client-node falls back to an anonymous
    // http://localhost:8080 (kubectl's old insecure port): refuse that rather than dial it.
    const cluster = kc.getCurrentCluster();
    if (cluster?.name === 'cluster' && cluster.server === 'http://localhost:8080' && !kc.getCurrentUser()?.token)
      throw new Error('no kubeconfig: give --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account');
  }
  if (!kc.getCurrentCluster()) throw new Error(`no cluster in the kubeconfig${o.kubeconfig ? ` ${o.kubeconfig}` : ''} (current context ${JSON.stringify(kc.getCurrentContext())})`);
  const context = kc.getContextObject(kc.getCurrentContext());
  const namespace = o.namespace ?? (context?.namespace?.trim() || 'default');
  const c = clusterClients(kc, namespace);
  return {
    namespace,
    facts: () => readFacts(c),
    apply: (manifests) => applyManifests(c, manifests),
    remove: (refs) => removeObjects(c, refs),
    read: (refs) => readObjects(c, refs),
    listEnv: (envLabel) => listEnv(c, envLabel),
    status: async (deployments) => (await inspectDeployments(c, deployments)).map((s) => s.status),
    logs: (deployment, lines) => readLogs(c, deployment, lines),
    endpoints: (ingresses) => readEndpoints(c, ingresses),
    waitReady: (deployments, w) => waitReady(c, deployments, w),
  };
}
