/**
 * The planner sweep: picks up envs in `planning` (claimed with a lease, `FOR UPDATE SKIP LOCKED`),
 * plans the env's pending deploy, and records the plan. With approval `auto` (the project's, or
 * `x-denv.approval` in the spec) the plan is approved by policy at once; with `required` the env
 * waits in `awaiting_approval` and its deployment stays `pending`. A planner that keeps failing
 * sets `failed` with "use Re-plan to retry".
 */
import { messageOf } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import type { Spec } from '../../contracts/spec.js';
import type { Bus } from '../bus.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import { planEcsEnv } from '../targets/ecs/plan-ecs-env.js';
import { planClusterEnv } from '../targets/kubernetes/plan-cluster-env.js';
import { createDeployment } from '../operations/create-deployment.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import { FinalPlanError, type Planner } from './planner.js';
import { guidanceHistory, latestPlan } from './plans.js';
import { finishUnrun } from './supersede.js';

export interface PlannerSweepDeps {
  readonly db: Db;
  readonly bus: Bus;
  /** The planner of host targets (and its `planEcs` of aws_ecs plans); kubernetes and aws_ecs
   *  targets are planned by targets/kubernetes/ and targets/ecs/. */
  readonly planner: Planner;
  /** Kubernetes targets: the planner reads the env's live objects through its cluster agent. */
  readonly agents: AgentGateway;
  readonly maxAttempts: number;
  readonly log: (line: string) => void;
}

/** Envs being planned by this process; planning runs beside the sweep (a planner may take
 *  seconds — an LLM does), so one slow plan never holds up the others. */
const inFlight = new Set<Promise<void>>();

export async function sweepPlanning(deps: PlannerSweepDeps): Promise<number> {
  // One statement, so its own transaction (no begin/commit around it).
  const claimed = await deps.db.query<EnvRow>(
    `update envs set planner_lease_until = now() + interval '5 minutes'
     where id in (select id from envs where status = 'planning' and (planner_lease_until is null or planner_lease_until < now())
                  order by updated_at limit 10 for update skip locked)
     returning *`,
  );
  for (const env of claimed) {
    const run = planEnv(deps, env)
      .catch((err) => deps.log(`planner: env ${env.id}: ${messageOf(err)}`))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  }
  return claimed.length;
}

/** Wait for plans in progress (shutdown). */
export async function plansSettled(): Promise<void> {
  await Promise.allSettled([...inFlight]);
}

/** The deploy this plan is for: the env's oldest pending deploy; or, after a failed planning, a new
 *  deploy of what that deploy asked; or (a replan of a live env) a new deploy of its latest version's spec. */
async function pendingDeploy(db: Db, env: EnvRow): Promise<DeploymentRow | null> {
  const pending = await db.query<DeploymentRow>("select * from deployments where env = $1 and kind = 'deploy' and status = 'pending' order by created_at limit 1", [env.id]);
  if (pending[0]) return pending[0];
  // The newest deploy never ran because its planning failed ("use Re-plan to retry"): the replan is
  // for what it asked (a first deploy has no version to fall back on; an upgrade must not be dropped).
  const newest = (await db.query<DeploymentRow>("select * from deployments where env = $1 and kind = 'deploy' order by created_at desc limit 1", [env.id]))[0];
  const planFailed = newest?.status === 'failed' && newest.phases.some((p) => p.name === 'verdict' && (p.evidence as { plan_failed?: unknown } | null)?.plan_failed !== undefined);
  if (newest && planFailed) return createDeployment(db, { team: env.team, env: env.id, kind: 'deploy', params: newest.params });
  const latest = await db.query<{ spec: Spec }>('select spec from versions where env = $1 order by number desc limit 1', [env.id]);
  if (!latest[0]) return null;
  return createDeployment(db, { team: env.team, env: env.id, kind: 'deploy', params: { spec: latest[0].spec, warm: null, target: null } });
}

async function planEnv(deps: PlannerSweepDeps, env: EnvRow): Promise<void> {
  const { db } = deps;
  const dep = await pendingDeploy(db, env);
  const project = (await db.query<{ approval: string }>('select approval from projects where id = $1', [env.project]))[0]!;
  const host = env.host ? (await db.query<{ name: string }>('select name from hosts where id = $1', [env.host]))[0]?.name ?? null : null;
  const current = env.current_version ? (await db.query<{ number: number }>('select number from versions where id = $1', [env.current_version]))[0]?.number ?? null : null;
  const guidance = await guidanceHistory(db, env.id);
  let plan;
  // A cluster env is planned for one cluster agent: the env is placed on it with its plan.
  let cluster: string | null = null;
  let awsAccount: string | null = null;
  try {
    if (!dep) throw new Error('nothing to plan: the env has no version and no pending deploy');
    const spec = (dep.params as { spec: Spec }).spec;
    const target = (dep.params as { target?: { host?: string; aws_account?: string } | null }).target ?? null;
    if (env.target === 'kubernetes') {
      ({ plan, host: cluster } = await planClusterEnv(db, deps.agents, { env, spec, requested: target?.host ?? null, instructions: guidance.join('\n'), replacesVersion: current }));
    } else if (env.target === 'aws_ecs') {
      ({ plan, account: awsAccount } = await planEcsEnv(db, { env, spec, requested: target?.aws_account ?? null, instructions: guidance.join('\n'), replacesVersion: current }));
      if (deps.planner.planEcs) plan = await deps.planner.planEcs({ spec, envName: env.name, hostName: null, replacesVersion: current, instructions: guidance.join('\n') }, plan);
    } else {
      plan = await deps.planner.plan({ spec, envName: env.name, hostName: host, replacesVersion: current, instructions: guidance.join('\n') });
    }
  } catch (err) {
    await recordFailure(deps, env, dep, messageOf(err), err instanceof FinalPlanError);
    return;
  }
  const spec = (dep!.params as { spec: Spec }).spec;
  const approval = spec.approval ?? project.approval;
  const recorded = await db.tx(async (tx) => {
    // The user may have acted while the planner worked (a teardown, a stop, a newer deploy): the
    // plan is then for nothing, and must not move the env out of the status that action set.
    if (!(await stillPlanning(tx, env.id, dep!.id))) {
      // A deploy this replan created after the action superseded the pending ones: finish it too.
      const status = (await tx.query<{ status: string }>('select status from envs where id = $1', [env.id]))[0]?.status;
      if (status !== 'planning') await finishUnrun(tx, dep!, `verdict: not applied: the env became ${status} while it was planned`, { superseded_by: status ?? 'gone' });
      await appendEvent(tx, { team: env.team, subject: `env:${env.id}`, type: 'plan_dropped', data: { deployment: dep!.id, status: status ?? null } });
      return false;
    }
    if (cluster && cluster !== env.host) await tx.query('update envs set host = $2 where id = $1', [env.id, cluster]);
    if (awsAccount && awsAccount !== env.aws_account) await tx.query('update envs set aws_account = $2 where id = $1', [env.id, awsAccount]);
    // Statements that do not wait on each other's answers are sent together and run in the order
    // sent (the transaction's one connection): three round trips for the plan, not nine (issue 11).
    const [, requested] = await Promise.all([
      tx.query("update env_plans set status = 'superseded' where env = $1 and status in ('ready')", [env.id]),
      latestPlan(tx, env.id, ['requested']),
    ]);
    const instructions = guidance.join('\n');
    const planId = requested?.id ?? newId('plan');
    const ready = { team: env.team, subject: `env:${env.id}`, type: 'plan_ready', data: { plan: planId, deployment: dep!.id, summary: plan.summary } };
    await Promise.all([
      requested
        ? tx.query("update env_plans set deployment = $2, planner = $3, summary = $4, artifact = $5, instructions = $6, namespace = $7, status = 'ready' where id = $1", [planId, dep!.id, plan.planner, plan.summary, plan.artifact, instructions, plan.namespace ?? null])
        : tx.query("insert into env_plans (id, env, deployment, planner, summary, artifact, instructions, namespace, status) values ($1, $2, $3, $4, $5, $6, $7, $8, 'ready')", [planId, env.id, dep!.id, plan.planner, plan.summary, plan.artifact, instructions, plan.namespace ?? null]),
      appendEvent(tx, ready),
      ...(approval === 'auto'
        ? [
            tx.query("update env_plans set status = 'approved', actor = 'policy', approved_at = now() where id = $1", [planId]),
            appendEvent(tx, { team: env.team, subject: `env:${env.id}`, type: 'plan_approved', data: { plan: planId, actor: 'policy' } }),
            tx.query("update envs set status = case when current_version is null then 'deploying' else 'upgrading' end, planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1", [env.id]),
          ]
        : [tx.query("update envs set status = 'awaiting_approval', planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1", [env.id])]),
    ]);
    return true;
  });
  if (recorded) deps.bus.emit('kick');
  else deps.log(`planner: env ${env.id}: no longer planning deploy ${dep!.id}; plan dropped (event plan_dropped)`);
}

/** Lock the env; true while it is still `planning` the deploy `dep` (still pending). One statement. */
async function stillPlanning(tx: Db, env: string, dep: string | null): Promise<boolean> {
  const row = (await tx.query<{ status: string; dep_status: string | null }>('select status, (select status from deployments where id = $2) as dep_status from envs where id = $1 for update', [env, dep]))[0];
  if (row?.status !== 'planning') return false;
  return !dep || row.dep_status === 'pending';
}

async function recordFailure(deps: PlannerSweepDeps, env: EnvRow, dep: DeploymentRow | null, message: string, final = false): Promise<void> {
  const { db } = deps;
  const attempts = env.planner_attempts + 1;
  if (attempts < deps.maxAttempts && !final) {
    await db.query('update envs set planner_attempts = $2, planner_lease_until = null where id = $1', [env.id, attempts]);
    return;
  }
  const error = `planning failed: ${message}; use Re-plan to retry`;
  await db.tx(async (tx) => {
    if (!(await stillPlanning(tx, env.id, dep?.id ?? null))) {
      await appendEvent(tx, { team: env.team, subject: `env:${env.id}`, type: 'plan_dropped', data: { deployment: dep?.id ?? null, error: message } });
      return;
    }
    await tx.query("update envs set status = 'failed', last_error = $2, planner_attempts = 0, planner_lease_until = null, updated_at = now() where id = $1", [env.id, error]);
    await appendEvent(tx, { team: env.team, subject: `env:${env.id}`, type: 'plan_failed', data: { error: message } });
    if (dep) await finishUnrun(tx, dep, error, { plan_failed: message });
  });
  if (dep) deps.bus.emit('deployment', dep.id);
}
