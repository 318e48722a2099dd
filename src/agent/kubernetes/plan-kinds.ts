/**
 * The kinds a plan may hold (contracts PLAN_KINDS), each with the one apiVersion the agent accepts
 * for it and its place in an apply: storage and configuration before the workloads that mount
 * them, Services before the Deployments behind them, Ingresses last so no route points at nothing.
 * Teardown goes the other way. A Record, so a new plan kind fails the build until placed here.
 */
import { DenvError } from '../../contracts/errors.js';
import type { PlanKind } from '../../contracts/kubernetes.js';

export const PLAN_KIND_INFO = {
  PersistentVolumeClaim: { apiVersion: 'v1', applyOrder: 0 },
  ConfigMap: { apiVersion: 'v1', applyOrder: 1 },
  Service: { apiVersion: 'v1', applyOrder: 2 },
  Deployment: { apiVersion: 'apps/v1', applyOrder: 3 },
  Ingress: { apiVersion: 'networking.k8s.io/v1', applyOrder: 4 },
} as const satisfies Record<PlanKind, { readonly apiVersion: string; readonly applyOrder: number }>;

/** The plan kind of an object or ref; anything else (another kind, or a plan kind under another apiVersion) is
 *  refused: the agent is the last check before the cluster, and a plan may come from a language model. */
export function planKindOf(o: { readonly apiVersion: string; readonly kind: string }, what: string): PlanKind {
  const info = Object.hasOwn(PLAN_KIND_INFO, o.kind) ? PLAN_KIND_INFO[o.kind as PlanKind] : undefined;
  if (!info) throw new DenvError('BAD_REQUEST', `${what}: kind ${o.kind} is not one a plan may hold (${Object.keys(PLAN_KIND_INFO).join(', ')})`);
  if (info.apiVersion !== o.apiVersion) throw new DenvError('BAD_REQUEST', `${what}: ${o.kind} must be apiVersion ${info.apiVersion}, not ${o.apiVersion}`);
  return o.kind as PlanKind;
}
