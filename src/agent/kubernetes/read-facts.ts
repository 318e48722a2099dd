import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { ClusterFacts } from '../../contracts/kubernetes.js';
import type { ClusterClients } from './cluster-clients.js';
import { httpStatusOf, KubeApiError } from './kube-api-error.js';

const DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
const DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';

/** Names of a class list, and the one annotated as the default (the first, should several be). */
function classes(items: readonly { metadata?: V1ObjectMeta }[], annotation: string): { names: string[]; default: string | null } {
  const names = items.map((i) => i.metadata?.name ?? '').filter(Boolean);
  const def = items.find((i) => i.metadata?.annotations?.[annotation] === 'true')?.metadata?.name ?? null;
  return { names, default: def };
}

/** Ingress and storage classes are cluster-scoped: an agent granted only its namespace may not list them
 *  (403). The planner then plans without them, rather than the agent failing its hello. */
async function listOrNone<T>(what: string, list: () => Promise<{ items: T[] }>): Promise<T[]> {
  try {
    return (await list()).items;
  } catch (e) {
    if (httpStatusOf(e) === 403) return [];
    throw new KubeApiError(what, e);
  }
}

/** The cluster's facts for the agent's hello (contracts `clusterFacts`). */
export async function readFacts(c: ClusterClients): Promise<ClusterFacts> {
  const [version, ingress, groups, storage] = await Promise.all([
    c.version.getCode().catch((e: unknown) => Promise.reject(new KubeApiError('read the API server version', e))),
    listOrNone('list IngressClasses', () => c.networking.listIngressClass()),
    c.apis.getAPIVersions().catch((e: unknown) => Promise.reject(new KubeApiError('list API groups', e))),
    listOrNone('list StorageClasses', () => c.storage.listStorageClass()),
  ]);
  const ing = classes(ingress, DEFAULT_INGRESS_CLASS);
  const sto = classes(storage, DEFAULT_STORAGE_CLASS);
  return {
    version: version.gitVersion,
    namespace: c.namespace,
    ingress_classes: ing.names.slice(0, 50),
    default_ingress_class: ing.default,
    cert_manager: groups.groups.some((g) => g.name === 'cert-manager.io'),
    storage_classes: sto.names.slice(0, 50),
    default_storage_class: sto.default,
  };
}
