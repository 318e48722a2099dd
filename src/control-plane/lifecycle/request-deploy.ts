/**
 * A deploy request (seed 002 "creating a deployment enters planning"): find or create the env,
 * create the `deploy` deployment (`pending`) and move the env into `planning` — the planner sweep
 * takes it from there. Call inside the request's transaction (its statements are sent together).
 *
 *   no live env, or running / degraded / failed / stopped  → planning
 *   planning / awaiting_approval                            → the older pending deploy is superseded; planning again
 *   deploying / upgrading                                   → queued: planned when the running deploy finishes
 *   stopping / tearing_down                                 → 409
 */
import type { EnvStage, EnvStatus, EnvTarget } from '../../contracts/domain.js';
import type { Spec } from '../../contracts/spec.js';
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

/** The target a spec asks for (`x-denv.target`, default host). */
export function targetOfSpec(spec: Pick<Spec, 'target'> | undefined): EnvTarget {
  return spec?.target ?? 'host';
}

export async function requestDeploy(db: Db, r: DeployRequest): Promise<{ env: EnvRow; deployment: DeploymentRow }> {
  const target = targetOfSpec((r.params as { spec?: Spec }).spec);
  let env = (await db.query<EnvRow>("select * from envs where project = $1 and name = $2 and status not in ('torn_down', 'separated') for update", [r.project, r.envName]))[0];
  const created = !env;
  if (!env) {
    env = (await db.query<EnvRow>("insert into envs (id, team, project, name, stage, status, target) values ($1, $2, $3, $4, $5, 'planning', $6) returning *", [newId('env'), r.team, r.project, r.envName, r.stage, target]))[0]!;
  } else if (env.target !== target) {
    // An env's workloads live on one target: moving them between a host and a cluster is not a deploy.
    throw new DenvError('INVALID_TRANSITION', `env ${env.name} (${env.id}) runs on target ${env.target}; this spec asks for ${target}: tear the env down first, or deploy it under another name`);
  }
  const status = env.status as EnvStatus;
  if (status === 'stopping' || status === 'tearing_down') {
    throw new DenvError('INVALID_TRANSITION', `cannot deploy to env ${env.name} (${env.id}): it is ${status}; wait until it is ${status === 'stopping' ? 'stopped' : 'torn down'}`);
  }
  // The pending deploy this one replaces says which deployment replaced it (`superseded by dep_…`).
  const id = newId('deployment');
  if (!created && (status === 'planning' || status === 'awaiting_approval')) await supersedePending(db, env.id, id);
  // Sent together, run in this order on the transaction's one connection: one round trip instead
  // of three. On the embedded store the API's reads wait behind a transaction (issue 11).
  const [deployment, planning] = await Promise.all([
    createDeployment(db, { team: r.team, env: env.id, kind: 'deploy', params: r.params, id, envRow: env }),
    status === 'deploying' || status === 'upgrading'
      ? undefined
      : db.query<EnvRow>("update envs set status = 'planning', planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1 returning *", [env.id]),
    appendEvent(db, { team: r.team, subject: `env:${env.id}`, type: 'deploy_requested', data: { deployment: id } }),
  ]);
  return { env: planning?.[0] ?? env, deployment };
}
