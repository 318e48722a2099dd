import type { DeploymentKind, Phase } from '../../contracts/domain.js';
import { KIND_PHASES } from '../../contracts/domain.js';
import { newId } from '../../contracts/ids.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow } from '../store/rows.js';

/** Insert a `pending` deployment with every phase of its kind listed `pending` (the API shows
 *  all phases from the start). The engine picks it up; call inside the request's transaction. */
export async function createDeployment(db: Db, d: { team: string; env: string; kind: DeploymentKind; params: Record<string, unknown>; id?: string }): Promise<DeploymentRow> {
  const phases: Phase[] = KIND_PHASES[d.kind].map((name) => ({ name, status: 'pending', evidence: null, started_at: null, finished_at: null }));
  const rows = await db.query<DeploymentRow>(
    "insert into deployments (id, team, env, kind, status, phases, params) values ($1, $2, $3, $4, 'pending', $5, $6) returning *",
    [d.id ?? newId('deployment'), d.team, d.env, d.kind, JSON.stringify(phases), JSON.stringify(d.params)],
  );
  return rows[0]!;
}
