/**
 * How a deployment moves its env's lifecycle status (seed 002 vocabulary). Until the lifecycle
 * issue brings planning/approval, a deploy goes straight to `deploying` (first version) or
 * `upgrading` (a version is current), and ends `running` or `failed`.
 */
import type { Db } from '../store/db.js';
import type { DeploymentRow } from '../store/rows.js';

export async function onDeploymentStarted(db: Db, dep: DeploymentRow): Promise<void> {
  if (dep.kind !== 'deploy') return;
  await db.query(
    "update envs set status = case when current_version is null then 'deploying' else 'upgrading' end, updated_at = now() where id = $1",
    [dep.env],
  );
}

export async function onDeploymentFinished(db: Db, dep: DeploymentRow): Promise<void> {
  if (dep.kind !== 'deploy') return;
  const status = dep.status === 'failed' ? 'failed' : 'running';
  await db.query('update envs set status = $2, last_error = $3, updated_at = now() where id = $1', [dep.env, status, dep.error]);
}
