/**
 * How a finished deployment moves its env's lifecycle status (seed 002): the outcome statuses of
 * the dispatched intents. A kind moves the env only while the env is still in the intent status
 * that ran it — a stop requested during a deploy wins over that deploy's outcome. Events
 * `apply_succeeded` / `apply_failed` record the outcome of deploys and starts.
 */
import type { DeploymentKind, EnvStatus } from '../../contracts/domain.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow } from '../store/rows.js';

interface Outcome {
  /** The env statuses this kind's outcome applies to. */
  readonly from: readonly EnvStatus[];
  /** Env status after `succeeded` / `rolled_back` (the previous version serves again). */
  readonly ok: EnvStatus;
  readonly failed: EnvStatus;
  readonly events?: { readonly ok: string; readonly failed: string };
}

export const OUTCOMES: Partial<Record<DeploymentKind, Outcome>> = {
  deploy: { from: ['deploying', 'upgrading'], ok: 'running', failed: 'failed', events: { ok: 'apply_succeeded', failed: 'apply_failed' } },
  start: { from: ['deploying'], ok: 'running', failed: 'failed', events: { ok: 'apply_succeeded', failed: 'apply_failed' } },
  stop: { from: ['stopping'], ok: 'stopped', failed: 'failed' },
  // A fork env is created `deploying` by the API (fork, sandbox from_version).
  fork: { from: ['deploying'], ok: 'running', failed: 'failed' },
  // DELETE /v1/envs/{env} and the teardown action set `tearing_down`; a failed teardown is retryable from `failed`.
  destroy: { from: ['tearing_down'], ok: 'torn_down', failed: 'failed' },
  // A rollback that brings a failed env back to a healthy snapshot makes it serve again.
  rollback: { from: ['failed'], ok: 'running', failed: 'failed' },
};

export async function onDeploymentFinished(db: Db, dep: DeploymentRow): Promise<void> {
  const outcome = OUTCOMES[dep.kind];
  if (!outcome) return;
  const failed = dep.status === 'failed';
  const status = failed ? outcome.failed : outcome.ok;
  // A deploy the host refused before any effect (verdict evidence `changed: false`) leaves an env
  // that has a current version serving it as before: back to the `ok` status, not `failed`.
  const unchanged = failed && (dep.phases.find((p) => p.name === 'verdict')?.evidence as { changed?: unknown } | null)?.changed === false;
  const event = outcome.events ? (failed ? outcome.events.failed : outcome.events.ok) : null;
  // Two statements sent together on one connection, run in this order (inside the caller's
  // transaction, or one of their own): one round trip (issue 11).
  await db.tx((tx) =>
    Promise.all([
      // The env moves, and its event is written only if it did.
      tx.query(
        `with moved as (
           update envs set status = case when $5::boolean and current_version is not null then $6 else $2 end, last_error = $3, updated_at = now()
           where id = $1 and status = any($4) returning id)
         insert into events (team, subject, type, data) select $7, 'env:' || id, $8, $9 from moved where $8::text is not null`,
        [dep.env, status, dep.error, outcome.from, unchanged, outcome.ok, dep.team, event, JSON.stringify({ deployment: dep.id, status: dep.status, error: dep.error })],
      ),
      // A deploy that arrived while this one ran waits in `pending`: plan it next.
      tx.query(
        `update envs set status = 'planning', updated_at = now() where id = $1 and status in ('running', 'degraded', 'failed')
           and exists (select 1 from deployments where env = $1 and kind = 'deploy' and status = 'pending')`,
        [dep.env],
      ),
    ]),
  );
}
