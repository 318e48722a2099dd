/**
 * What `denv agent --kubernetes` asks of the cluster it deploys into: one namespace, objects
 * applied with server-side apply (field manager `denv`), and reads of what runs there. Opened by
 * `openCluster` (open-cluster.ts); every method is one or a few API calls, none keeps state
 * between calls, so each may be retried or called again after a restart.
 */
import type { ClusterFacts, KubeObject, KubeRef, WorkloadStatus } from '../../contracts/kubernetes.js';
import type { PodLogLine } from './merge-pod-logs.js';

export interface ClusterOptions {
  /** A kubeconfig file; default: `KUBECONFIG`, then ~/.kube/config, then the in-cluster service account. */
  readonly kubeconfig?: string;
  /** Default: the kubeconfig context's namespace (in-cluster: the service account's), else `default`. */
  readonly namespace?: string;
}

export interface Cluster {
  readonly namespace: string;
  /** For the agent's hello: the API server's version, ingress and storage classes (and their defaults),
   *  whether cert-manager is served. Classes the agent may not list (403) are reported as none. */
  facts(): Promise<ClusterFacts>;
  /** Server-side apply (field manager `denv`, force) of each object in `namespace`, PVCs, ConfigMaps,
   *  Services, Deployments then Ingresses. All are checked before any is sent: a kind outside the plan
   *  kinds, another namespace, a duplicate or a field the client would drop is refused (DenvError
   *  BAD_REQUEST). An API error stops there as a KubeApiError naming the object; what was applied before
   *  it stays (re-applying is idempotent). Returns what was applied, in that order. */
  apply(manifests: readonly KubeObject[]): Promise<KubeRef[]>;
  /** Deletes exactly these objects of `namespace` (Ingresses first, PVCs last; propagation Background);
   *  one already gone is `absent`, not an error. */
  remove(refs: readonly KubeRef[]): Promise<{ deleted: KubeRef[]; absent: KubeRef[] }>;
  /** The live objects, as the API server's JSON; missing ones are skipped. */
  read(refs: readonly KubeRef[]): Promise<KubeObject[]>;
  /** The live Deployments, Services, PVCs, Ingresses and ConfigMaps labelled `denv.dev/env=<envLabel>`. */
  listEnv(envLabel: string): Promise<KubeObject[]>;
  /** Each Deployment's replicas, images and pods; a Deployment that does not exist is left out. */
  status(deployments: readonly string[]): Promise<WorkloadStatus[]>;
  /** The last ≤ min(lines, 200) lines of the Deployment's pods, merged by time, each prefixed `[pod] `
   *  (`[pod/container] ` in a pod of several containers). A pod still waiting to start gives none. */
  logs(deployment: string, lines: number): Promise<PodLogLine[]>;
  /** `https://host` (host covered by the Ingress's tls) or `http://host` for each rule of these Ingresses. */
  endpoints(ingresses: readonly string[]): Promise<string[]>;
  /** Polls until every Deployment is rolled out (see rolled-out.ts) or `timeoutMs` passes or `signal`
   *  aborts; then resolves with the last status either way: the caller judges it. */
  waitReady(deployments: readonly string[], o: { readonly timeoutMs: number; readonly signal?: AbortSignal }): Promise<WorkloadStatus[]>;
}
