import { DenvError } from '../../contracts/errors.js';
import type { ClusterContext } from './cluster-context.js';

/**
 * A command names the namespace its plan was made for (seed 002: apply and delete "in the plan's
 * namespace"). An agent restarted with another `--namespace` would otherwise apply the plan where it
 * was never approved, and a teardown would look for the env's objects where they are not: it
 * refuses instead, before touching anything. No namespace (a plan made before plans recorded it):
 * the agent's own.
 */
export function checkPlanNamespace(namespace: string | undefined, ctx: ClusterContext): void {
  if (namespace === undefined || namespace === ctx.cluster.namespace) return;
  throw new DenvError(
    'CONFLICT',
    `the plan was made for namespace ${namespace}, and this agent works in namespace ${ctx.cluster.namespace}: restart it with --namespace ${namespace}, or re-plan the env for ${ctx.cluster.namespace}`,
  );
}
