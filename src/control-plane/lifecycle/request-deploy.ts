/**
 * A deploy request (seed 002 "creating a deployment enters planning"): find or create the env,
 * create the `deploy` deployment (`pending`) and move the env into `planning` — the planner sweep
 * takes it from there. Call inside the request's transaction.
 *
 *   no live env, or running / degraded / failed / stopped  → planning
 *   planning / awaiting_approval                            → the older pending deploy is superseded; planning again
 *   deploying / upgrading                                   → queued: planned when the running deploy finishes
 *   stopping / tearing_down                                 → 409
 */
import type { EnvStage, EnvStatus } from '../../contracts/domain.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { createDeployment } from '../operations/create-deployment.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import { supersedePending } from './supersede.js';

export interface DeployRequest {
  readonly team: string;
  readonly project: string;
  readonly envName: string;
  readonly stage: EnvStage;
  readonly params: Record<string, unknown>;
}

export async function requestDeploy(db: Db, r: DeployRequest): Promise<{ env: EnvRow; deployment: DeploymentRow }> {
  let env = (await db.query<EnvRow>("select * from envs where project = $1 and name = $2 and status not in ('torn_down', 'separated') for update", [r.project, r.envName]))[0];
  if (!env) {
    env = (await db.query<EnvRow>("insert into envs (id, team, project, name, stage, status) values ($1, $2, $3, $4, $5, 'planning') returning *", [newId('env'), r.team, r.project, r.envName, r.stage]))[0]!;
  }
  const status = env.status as EnvStatus;
  if (status === 'stopping' || status === 'tearing_down') {
    throw new DenvError('INVALID_TRANSITION', `cannot deploy to env ${env.name} (${env.id}): it is ${status}; wait until it is ${status === 'stopping' ? 'stopped' : 'torn down'}`);
  }
  // The pending deploy this one replaces says which deployment replaced it (`superseded by dep_…`).
  const id = newId('deployment');
  if (status === 'planning' || status === 'awaiting_approval') await supersedePending(db, env.id, id);
  const deployment = await createDeployment(db, { team: r.team, env: env.id, kind: 'deploy', params: r.params, id });
  if (status !== 'deploying' && status !== 'upgrading') {
    env = (await db.query<EnvRow>("update envs set status = 'planning', planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1 returning *", [env.id]))[0]!;
  }
  await appendEvent(db, { team: r.team, subject: `env:${env.id}`, type: 'deploy_requested', data: { deployment: deployment.id } });
  return { env, deployment };
}
