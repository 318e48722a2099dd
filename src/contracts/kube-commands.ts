/**
 * The commands a Kubernetes cluster agent (`denv agent --kubernetes`) understands (seed 002:
 * apply, apply with replicas 0, delete exactly the named resources), with their payloads and
 * results. They travel like every command (protocol.ts): persisted, delivered at least once,
 * answered from the agent's record when re-delivered. A host agent answers them BAD_REQUEST, and
 * a cluster agent answers the host commands the same way.
 */
import { z } from 'zod';
import { kubeRef, type KubeObject, type KubeRef, type WorkloadStatus } from './kubernetes.js';

/** An env id: the agent's record of what it applied is keyed by it. */
const envId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/);
const namespaceName = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const kubeObject = z.looseObject({ apiVersion: z.string().min(1), kind: z.string().min(1), metadata: z.looseObject({ name: z.string().min(1).max(253) }) });

export interface KubeCommands {
  /** Server-side apply (field manager `denv`) of the plan's manifests in the agent's namespace, in a
   *  stable order; the agent remembers the env's Deployments and Ingresses for its live status.
   *  Idempotent: applying the same manifests again changes nothing. `namespace`: the one the plan
   *  was made for; an agent working in another refuses (CONFLICT) and applies nothing. */
  'kube.apply': {
    payload: { env: string; version: string; manifests: KubeObject[]; namespace?: string };
    result: { applied: KubeRef[]; namespace: string };
  };
  /** Wait until each Deployment has as many ready replicas as desired (a rollout finished), at most
   *  `timeout_ms`; `ready: false` with the last status when the time is up. */
  'kube.wait': {
    payload: { env: string; deployments: string[]; timeout_ms: number };
    result: { ready: boolean; workloads: WorkloadStatus[]; waited_ms: number };
  };
  /** Delete exactly `refs` in the agent's namespace (teardown; a verdict's prune) — those of them
   *  the env owns (`kept`: another env's, or no env's). `forget`: the agent forgets the env (teardown).
   *  `namespace`: the one the plan was made for; an agent working in another refuses (CONFLICT). */
  'kube.delete': {
    payload: { env: string; refs: KubeRef[]; forget?: boolean; namespace?: string };
    result: { deleted: KubeRef[]; absent: KubeRef[]; kept: KubeRef[] };
  };
  /** The env's objects now in the cluster (labelled `denv.dev/env=<label>`): the planner evolves them. */
  'kube.live': {
    payload: { env: string; label: string };
    result: { objects: KubeObject[] };
  };
  /** Live status now: per Deployment desired/ready, images, pods; the hosts of the Ingresses. */
  'kube.status': {
    payload: { env: string; deployments: string[]; ingresses: string[] };
    result: { workloads: WorkloadStatus[]; endpoints: string[] };
  };
}

export type KubeCommandKind = keyof KubeCommands;

/** What a cluster agent checks each payload against (unknown fields dropped, as for host commands). */
export const KUBE_PAYLOADS = {
  'kube.apply': z.object({ env: envId, version: envId, manifests: z.array(kubeObject).min(1).max(200), namespace: namespaceName.optional() }),
  'kube.wait': z.object({ env: envId, deployments: z.array(z.string().min(1).max(253)).max(100), timeout_ms: z.number().int().min(0).max(3_600_000) }),
  'kube.delete': z.object({ env: envId, refs: z.array(kubeRef).max(200), forget: z.boolean().optional(), namespace: namespaceName.optional() }),
  'kube.live': z.object({ env: envId, label: z.string().min(1).max(63) }),
  'kube.status': z.object({ env: envId, deployments: z.array(z.string().min(1).max(253)).max(100), ingresses: z.array(z.string().min(1).max(253)).max(100) }),
} satisfies { readonly [K in KubeCommandKind]: z.ZodType };
