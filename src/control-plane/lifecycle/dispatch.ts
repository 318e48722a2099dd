/**
 * What the dispatcher (the phase engine) may run. A lifecycle deployment runs only while its env
 * is in the intent status that asked for it — so with approval `required` a deploy stays
 * `pending` and nothing touches a host until the plan is approved. Other kinds (fork, snapshot,
 * rollback, verify, destroy, separate) run as soon as they are created.
 */
import type { DeploymentKind, EnvStatus } from '../../contracts/domain.js';

export const DISPATCH_WHEN: Partial<Record<DeploymentKind, readonly EnvStatus[]>> = {
  deploy: ['deploying', 'upgrading'],
  start: ['deploying'],
  stop: ['stopping'],
};

/** SQL condition on `d` (deployments) and `e` (envs) for the engine's claim query. */
export function dispatchCondition(): string {
  const gated = Object.entries(DISPATCH_WHEN).map(([kind, statuses]) => `(d.kind = '${kind}' and e.status in (${statuses!.map((s) => `'${s}'`).join(', ')}))`);
  const kinds = Object.keys(DISPATCH_WHEN).map((k) => `'${k}'`).join(', ');
  return `(d.kind not in (${kinds}) or ${gated.join(' or ')})`;
}
