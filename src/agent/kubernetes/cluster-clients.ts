import { AppsV1Api, ApisApi, CoreV1Api, KubeConfig, KubernetesObjectApi, NetworkingV1Api, StorageV1Api, VersionApi } from '@kubernetes/client-node';

/** The API clients of one kubeconfig, and the namespace every namespaced call uses. */
export interface ClusterClients {
  readonly namespace: string;
  /** Generic objects: server-side apply, get, list, delete by apiVersion/kind (discovery is cached per client). */
  readonly objects: KubernetesObjectApi;
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly networking: NetworkingV1Api;
  readonly storage: StorageV1Api;
  readonly version: VersionApi;
  readonly apis: ApisApi;
}

export function clusterClients(kc: KubeConfig, namespace: string): ClusterClients {
  return {
    namespace,
    objects: KubernetesObjectApi.makeApiClient(kc),
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    networking: kc.makeApiClient(NetworkingV1Api),
    storage: kc.makeApiClient(StorageV1Api),
    version: kc.makeApiClient(VersionApi),
    apis: kc.makeApiClient(ApisApi),
  };
}
