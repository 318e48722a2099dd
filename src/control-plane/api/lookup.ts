import { DenvError } from '../../contracts/errors.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow, EnvRow, ProjectRow } from '../store/rows.js';

/** Team-scoped lookups by id or name; another team's rows are simply not found. */
export async function findProject(db: Db, team: string, ref: string): Promise<ProjectRow> {
  const rows = await db.query<ProjectRow>('select * from projects where team = $1 and (id = $2 or name = $2)', [team, ref]);
  if (!rows[0]) throw new DenvError('NOT_FOUND', `project "${ref}" not found`);
  return rows[0];
}

export async function findEnv(db: Db, team: string, ref: string): Promise<EnvRow> {
  const rows = await db.query<EnvRow>('select * from envs where team = $1 and id = $2', [team, ref]);
  if (!rows[0]) throw new DenvError('NOT_FOUND', `env "${ref}" not found`);
  return rows[0];
}

export async function findDeployment(db: Db, team: string, id: string): Promise<DeploymentRow> {
  const rows = await db.query<DeploymentRow>('select * from deployments where team = $1 and id = $2', [team, id]);
  if (!rows[0]) throw new DenvError('NOT_FOUND', `deployment "${id}" not found`);
  return rows[0];
}

/** The env named `name` in project `project` that is not torn down or separated (names are unique among those), or null. */
export async function liveEnvNamed(db: Db, project: string, name: string): Promise<EnvRow | null> {
  return (await db.query<EnvRow>("select * from envs where project = $1 and name = $2 and status not in ('torn_down', 'separated')", [project, name]))[0] ?? null;
}
