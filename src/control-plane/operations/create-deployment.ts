import type { DeploymentKind, EnvTarget, Phase } from '../../contracts/domain.js';
import { assertKindOnTarget } from './kinds.js';
import { KIND_PHASES } from '../../contracts/domain.js';
import { newId } from '../../contracts/ids.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow } from '../store/rows.js';

/** Insert a `pending` deployment with every phase of its kind listed `pending` (the API shows
 *  all phases from the start). The engine picks it up; call inside the request's transaction.
 *  A kind the env's target cannot run is refused (409) before anything is written. `envRow`: the
 *  env as the caller just read it (its name and target), saving a statement. */
export async function createDeployment(
  db: Db,
  d: { team: string; env: string; kind: DeploymentKind; params: Record<string, unknown>; id?: string; envRow?: { name: string; target: EnvTarget } },
): Promise<DeploymentRow> {
  const env = d.envRow ?? (await db.query<{ name: string; target: EnvTarget }>('select name, target from envs where id = $1', [d.env]))[0];
  if (env) assertKindOnTarget(d.kind, env.target, env.name);
  const phases: Phase[] = KIND_PHASES[d.kind].map((name) => ({ name, status: 'pending', evidence: null, started_at: null, finished_at: null }));
  const rows = await db.query<DeploymentRow>(
    "insert into deployments (id, team, env, kind, status, phases, params) values ($1, $2, $3, $4, 'pending', $5, $6) returning *",
    [d.id ?? newId('deployment'), d.team, d.env, d.kind, JSON.stringify(phases), JSON.stringify(d.params)],
  );
  return rows[0]!;
}
