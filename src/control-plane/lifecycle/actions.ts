/**
 * User actions on an env (seed 002). Each checks the lifecycle table, sets the intent status and,
 * where work is needed, creates the deployment the dispatcher will run — all in one transaction,
 * so a refused action changes nothing. Refusals are 409 INVALID_TRANSITION naming the current
 * status and the actions it allows.
 */
import type { DeploymentKind, EnvStatus } from '../../contracts/domain.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { createDeployment } from '../operations/create-deployment.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import { latestPlan } from './plans.js';
import { ACTION_TO, allowedActions, isAllowed, type UserAction } from './state-machine.js';
import { supersedePending } from './supersede.js';

export interface ActionResult {
  readonly env: EnvRow;
  readonly deployment: DeploymentRow | null;
}

function refuse(env: EnvRow, action: UserAction): never {
  const allowed = allowedActions(env.status as EnvStatus);
  throw new DenvError(
    'INVALID_TRANSITION',
    `cannot ${action.replace('_', ' ')} env ${env.name} (${env.id}): it is ${env.status}; allowed now: ${allowed.length > 0 ? allowed.join(', ') : 'nothing'}`,
  );
}

async function setStatus(db: Db, env: EnvRow, status: EnvStatus): Promise<EnvRow> {
  const rows = await db.query<EnvRow>('update envs set status = $2, planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1 returning *', [env.id, status]);
  return rows[0]!;
}

const event = (db: Db, env: EnvRow, type: string, data: Record<string, unknown> = {}) =>
  appendEvent(db, { team: env.team, subject: `env:${env.id}`, type, data });

/** Lifecycle actions that run as a deployment of a kind. */
const ACTION_KIND: Partial<Record<UserAction, DeploymentKind>> = { stop: 'stop', start: 'start', teardown: 'destroy', separate: 'separate' };

/** Perform `action` on the env `envId` of `team`. Call inside a transaction. */
export async function performAction(db: Db, team: string, envId: string, action: UserAction, opts: { guidance?: string } = {}): Promise<ActionResult> {
  const env = (await db.query<EnvRow>('select * from envs where id = $1 and team = $2 for update', [envId, team]))[0];
  if (!env) throw new DenvError('NOT_FOUND', `env "${envId}" not found`);
  if (!isAllowed(action, env.status as EnvStatus)) refuse(env, action);

  switch (action) {
    case 'approve': {
      const plan = await latestPlan(db, env.id, ['ready']);
      if (!plan) throw new DenvError('INVALID_TRANSITION', `env ${env.name} has no plan awaiting approval`);
      await db.query("update env_plans set status = 'approved', actor = 'user', approved_at = now() where id = $1", [plan.id]);
      await event(db, env, 'plan_approved', { plan: plan.id, actor: 'user' });
      // ACTION_TO says deploying; an env that already runs a version is upgraded instead.
      const next = await setStatus(db, env, env.current_version ? 'upgrading' : ACTION_TO.approve);
      const dep = plan.deployment ? (await db.query<DeploymentRow>('select * from deployments where id = $1', [plan.deployment]))[0] ?? null : null;
      return { env: next, deployment: dep };
    }
    case 'replan': {
      await db.query("update env_plans set status = 'superseded' where env = $1 and status in ('ready', 'requested')", [env.id]);
      await db.query("insert into env_plans (id, env, planner, summary, artifact, guidance, status) values ($1, $2, 'pending', '', '', $3, 'requested')", [newId('plan'), env.id, opts.guidance ?? null]);
      await event(db, env, 'replan_requested', { guidance: opts.guidance ?? null });
      return { env: await setStatus(db, env, 'planning'), deployment: null };
    }
    case 'delete_record': {
      await db.query('delete from commands where deployment in (select id from deployments where env = $1)', [env.id]);
      await db.query('delete from env_plans where env = $1', [env.id]);
      await db.query('delete from deployments where env = $1', [env.id]);
      await db.query('update envs set current_version = null, parent_version = null where id = $1', [env.id]);
      await db.query('delete from versions where env = $1', [env.id]);
      await db.query('delete from envs where id = $1', [env.id]);
      await event(db, env, 'record_deleted', {});
      return { env, deployment: null };
    }
    default: {
      const kind = ACTION_KIND[action]!;
      const target: EnvStatus = ACTION_TO[action];
      if (action !== 'start') await supersedePending(db, env.id, action);
      const dep = await createDeployment(db, { team: env.team, env: env.id, kind, params: {} });
      await event(db, env, `${action}_requested`, { deployment: dep.id, from: env.status });
      return { env: await setStatus(db, env, target), deployment: dep };
    }
  }
}
