/**
 * stop, start, teardown and separate on ECS (seed 002): stop sets desiredCount 0 (record, plan and
 * everything else stay); start applies the current version's plan again and waits for it; teardown
 * deletes the ECS service and nothing else (cluster, role, log group, security group stay for the
 * next deployment); separate touches nothing in AWS and flags the account for the operator's
 * hand-over (no automatic transfer).
 */
import { PhaseFailed, ok, skipped, type PhaseDef } from '../../../operations/phase.js';
import { lastAppliedPlan } from '../../applied-plans.js';
import { applyOptions, deployPlan, versionPlan, waitServiceStable, withEcs } from './ecs-context.js';

async function currentPlan(ctx: Parameters<PhaseDef['run']>[0]) {
  const env = await ctx.env();
  if (!env.current_version) return null;
  return versionPlan(ctx, env.current_version);
}

/** stop: desiredCount 0 on the current version's service — or, after a failed first deploy whose
 *  verdict could not delete its service (AWS unreachable), on that service (ECS would otherwise go
 *  on starting its tasks). */
export const ecsStop: PhaseDef = {
  name: 'stop',
  async run(ctx) {
    const current = await currentPlan(ctx);
    const applied = current ? null : await lastAppliedPlan(ctx, ctx.deployment.env);
    const plan = current?.plan ?? (applied ? await deployPlan(ctx, applied.deployment) : null);
    if (!plan) return skipped({ reason: 'nothing was applied on ECS' });
    const res = await withEcs(ctx, (t) => t.stop(plan, { signal: ctx.signal }));
    return ok({ service: plan.service.serviceName, desired_count: 0, existed: res.existed });
  },
};

export const ecsStartApply: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const current = await currentPlan(ctx);
    if (!current) throw new PhaseFailed('the env has no current version to start');
    const options = await applyOptions(ctx, current.plan, current.spec);
    const res = await withEcs(ctx, (t) => t.start(current.plan, options));
    ctx.state.task_definition = res.taskDefinitionArn;
    return ok({ task_definition: res.taskDefinitionArn, service: res.serviceArn });
  },
};

export const ecsStartHealth: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const current = await currentPlan(ctx);
    if (!current) throw new PhaseFailed('the env has no current version to start');
    const { stable, live } = await withEcs(ctx, async (t) => ({
      stable: await waitServiceStable(ctx, t, current.plan, ctx.state.task_definition as string | undefined),
      live: await t.liveStatus(current.plan, { signal: ctx.signal }),
    }));
    await ctx.db.query('update envs set endpoints = $2 where id = $1', [ctx.deployment.env, JSON.stringify(live.endpoints.map((url) => ({ service: current.plan.container.service, url })))]);
    return ok({ ...stable, workloads: live.workloads });
  },
};

export const ecsTeardown: PhaseDef = {
  name: 'teardown',
  async run(ctx) {
    const rows = await ctx.db.query<{ deployment: string }>("select deployment from env_plans where env = $1 and status = 'approved' order by created_at desc limit 1", [ctx.deployment.env]);
    if (!rows[0]) return skipped({ reason: 'no plan was approved; nothing applied' });
    const plan = await deployPlan(ctx, rows[0].deployment);
    const res = await withEcs(ctx, (t) => t.teardown(plan, { signal: ctx.signal }));
    return ok({ service: plan.service.serviceName, deleted: res.existed, kept: ['cluster', 'execution role', 'log group', 'security group', ...(plan.pullSecret ? ['pull secret'] : [])] });
  },
};

export const ecsRelease: PhaseDef = {
  name: 'release',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.aws_account) return skipped({ reason: 'no AWS account chosen' });
    // The account is handed over only when this env was the last denv ran there: a shared account
    // still runs the team's other envs.
    const others = await ctx.db.query<{ name: string }>("select name from envs where aws_account = $1 and id <> $2 and status not in ('torn_down', 'separated')", [env.aws_account, env.id]);
    if (others.length > 0) return ok({ aws_account: env.aws_account, handover: 'not requested', reason: `the account still runs ${others.map((o) => o.name).join(', ')}`, left_running: true });
    const rows = await ctx.db.query<{ name: string; handover_requested_at: unknown }>('update aws_accounts set handover_requested_at = coalesce(handover_requested_at, now()) where id = $1 returning name, handover_requested_at', [env.aws_account]);
    return ok({ aws_account: rows[0]?.name ?? env.aws_account, handover: 'requested', handover_requested_at: new Date(rows[0]!.handover_requested_at as string).toISOString(), left_running: true });
  },
};
