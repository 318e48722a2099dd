/**
 * What can be forked (API side, checked before anything is written): a version that is a healthy
 * snapshot whose env still holds its data. Every refusal is a 409 that says why.
 */
import { randomBytes } from 'node:crypto';
import type { EnvStage, EnvTarget } from '../../contracts/domain.js';
import { assertKindOnTarget } from '../operations/kinds.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { createDeployment } from '../operations/create-deployment.js';
import type { VersionRecord } from '../operations/versions.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import { appendEvent } from '../store/events.js';
import { snapshotPrunedAt } from '../store/snapshot-retention.js';

/** Refuse (409) a version that is not a healthy snapshot, or whose env's data is gone. */
export async function assertForkable(db: Db, version: VersionRecord): Promise<void> {
  const source = (await db.query<{ name: string; target: string }>('select name, target from envs where id = $1', [version.env]))[0];
  if (source) assertKindOnTarget('fork', source.target as EnvTarget, source.name);
  if (!version.healthy) throw new DenvError('CONFLICT', `version ${version.id} is not healthy (the operation that created it did not succeed); only healthy snapshots can be forked`);
  if (!version.snapshot) throw new DenvError('CONFLICT', `version ${version.id} has no snapshot to fork from`);
  if (await snapshotPrunedAt(db, version.id)) throw new DenvError('CONFLICT', `version ${version.id} cannot be forked: its snapshot was pruned (snapshot retention)`);
  const owner = (await db.query<{ status: string; host: string | null }>('select status, host from envs where id = $1', [version.env]))[0];
  if (!owner || owner.status === 'torn_down' || owner.status === 'separated') {
    throw new DenvError('CONFLICT', `version ${version.id} cannot be forked: its env ${version.env} is ${owner?.status ?? 'gone'}, so its snapshots are no longer kept`);
  }
  if (!owner.host) throw new DenvError('CONFLICT', `version ${version.id} cannot be forked: its env ${version.env} has no host holding the snapshot`);
}

export const shortSuffix = () => randomBytes(3).toString('hex');

/**
 * Create the fork env (`stage`, parent version set, `deploying`) in `project` and its `fork`
 * deployment. A live env of that name in the project is a 409. Call inside a transaction.
 */
export async function createFork(db: Db, f: { team: string; project: string; name: string; stage: EnvStage; version: VersionRecord }): Promise<{ env: EnvRow; deployment: DeploymentRow }> {
  const taken = await db.query("select 1 from envs where project = $1 and name = $2 and status not in ('torn_down', 'separated')", [f.project, f.name]);
  if (taken.length > 0) throw new DenvError('CONFLICT', `an env named "${f.name}" already exists in this project`);
  const env = (await db.query<EnvRow>(
    "insert into envs (id, team, project, name, stage, status, parent_version) values ($1, $2, $3, $4, $5, 'deploying', $6) returning *",
    [newId('env'), f.team, f.project, f.name, f.stage, f.version.id],
  ))[0]!;
  const deployment = await createDeployment(db, { team: f.team, env: env.id, kind: 'fork', params: { version: f.version.id } });
  await appendEvent(db, { team: f.team, subject: `env:${env.id}`, type: 'fork_requested', data: { deployment: deployment.id, from_version: f.version.id } });
  return { env, deployment };
}
