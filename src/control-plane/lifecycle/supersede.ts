/**
 * Deployments that will never run — a deploy whose plan failed, or that a stop / teardown /
 * separate / newer deploy replaced before approval — are finished here rather than left
 * `pending` forever: every phase skipped, verdict records why, status `failed`.
 */
import type { Phase } from '../../contracts/domain.js';
import type { Db } from '../store/db.js';
import { appendDeploymentEvent } from '../store/events.js';
import type { DeploymentRow } from '../store/rows.js';

export async function finishUnrun(db: Db, dep: DeploymentRow, error: string, verdictEvidence: Record<string, unknown>): Promise<void> {
  const phases: Phase[] = dep.phases.map((p) =>
    p.name === 'verdict'
      ? { ...p, status: 'ok', evidence: verdictEvidence, started_at: new Date().toISOString(), finished_at: new Date().toISOString() }
      : { ...p, status: 'skipped', evidence: { reason: 'not applied' } },
  );
  const rows = await db.query<{ id: string }>(
    "update deployments set status = 'failed', error = $2, phases = $3, finished_at = now() where id = $1 and status = 'pending' returning id",
    [dep.id, error, JSON.stringify(phases)],
  );
  if (rows.length === 0) return;
  await appendDeploymentEvent(db, dep, 'deployment.finished', { status: 'failed', took_ms: 0, error });
}

/** Finish every pending lifecycle deployment of `env` (deploy/start/stop), superseded by `action`. */
export async function supersedePending(db: Db, env: string, action: string): Promise<string[]> {
  const pending = await db.query<DeploymentRow>("select * from deployments where env = $1 and status = 'pending' and kind in ('deploy', 'start', 'stop')", [env]);
  for (const dep of pending) await finishUnrun(db, dep, `verdict: not applied: superseded by ${action}`, { superseded_by: action });
  return pending.map((d) => d.id);
}
