/**
 * What the control plane and a Kubernetes agent (`denv agent --kubernetes`) share: the cluster's
 * facts (sent in the agent's hello, read by the planner), the objects a plan holds, and the
 * live status the agent reports. No I/O here.
 */
import { z } from 'zod';

/** A Kubernetes object as JSON: apiVersion, kind, metadata.name at least. Namespaced objects of a plan
 *  carry no namespace of their own (the agent applies them in its namespace) or exactly that one. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** Names one object of a plan (what teardown deletes, what the planner reads back live). */
export interface KubeRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

export const kubeRef = z.strictObject({ apiVersion: z.string().min(1).max(200), kind: z.string().min(1).max(100), name: z.string().min(1).max(253) });

/** The kinds a plan may hold: namespaced workload plumbing only (no RBAC, no cluster-scoped kinds). */
export const PLAN_KINDS = ['Deployment', 'Service', 'PersistentVolumeClaim', 'Ingress', 'ConfigMap'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];

/** Labels every planned object carries; the agent lists an env's live objects by `denv.dev/env`. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_ENV = 'denv.dev/env';
export const LABEL_SERVICE = 'denv.dev/service';
/** Server-side apply's field manager for everything denv applies. */
export const FIELD_MANAGER = 'denv';

/** Reported by a Kubernetes agent in its hello (`facts.cluster`). */
export const clusterFacts = z.looseObject({
  /** The API server's version, e.g. `v1.31.2` (`GET /version` gitVersion). */
  version: z.string().max(100),
  /** The namespace the agent applies into. */
  namespace: z.string().min(1).max(63),
  ingress_classes: z.array(z.string().max(253)).max(50),
  /** The class marked `ingressclass.kubernetes.io/is-default-class`, else null. */
  default_ingress_class: z.string().max(253).nullable(),
  /** cert-manager's API group (`cert-manager.io`) is served. */
  cert_manager: z.boolean(),
  storage_classes: z.array(z.string().max(253)).max(50),
  default_storage_class: z.string().max(253).nullable(),
});
export type ClusterFacts = z.infer<typeof clusterFacts>;

/** One pod of a workload, as the agent reports it. `reason`: why it is not running/ready
 *  (a waiting or last-terminated reason such as `CrashLoopBackOff`, `ImagePullBackOff`, `OOMKilled`). */
export interface PodStatus {
  readonly name: string;
  readonly phase: string;
  readonly ready: boolean;
  readonly restarts: number;
  readonly reason: string | null;
}

/** One Deployment's state in the cluster. */
export interface WorkloadStatus {
  readonly name: string;
  /** The denv service it runs (its `denv.dev/service` label), null when it has none. */
  readonly service: string | null;
  readonly desired: number;
  readonly ready: number;
  readonly images: readonly string[];
  readonly pods: readonly PodStatus[];
}
