/**
 * The deploy kind's phases on an AWS account (seed 002: the control plane performs the ECS work
 * directly, no agent): place records the account, prepare applies the plan (scaffolding, the
 * registry-pull secret with the project's login read now, task definition, service), start waits until the service is stable, health and ingress read its tasks
 * (endpoints: each task's public IP). Phases with nothing to do are skipped with the reason.
 */
import { ok, skippedPhase as skip, type PhaseDef } from '../../../operations/phase.js';
import { paramsOf } from '../../../operations/deploy/state.js';
import { applyOptions, deployPlan, waitServiceStable, withEcs } from './ecs-context.js';
import { ecsStateOf } from './ecs-state.js';

export const ecsPlace: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const plan = await deployPlan(ctx);
    return withEcs(ctx, async (_t, account) => ok({ aws_account: account, region: plan.region, cluster: plan.service.cluster, service: plan.service.serviceName, reason: 'account chosen at planning' }));
  },
};

export const ecsProvision = skip('provision', 'an AWS ECS target: Fargate runs the tasks, no machine to make');
export const ecsJoin = skip('join', 'an AWS ECS target: no agent joins');
export const ecsWarm = skip('warm', 'an AWS ECS target: no warm-up requests');
export const ecsSnapshot = skip('snapshot', 'an AWS ECS target: no datasets to snapshot');

export const ecsPrepare: PhaseDef = {
  name: 'prepare',
  async run(ctx) {
    const plan = await deployPlan(ctx);
    const options = await applyOptions(ctx, plan, paramsOf(ctx.deployment.params).spec);
    const res = await withEcs(ctx, (t) => t.apply(plan, options));
    ecsStateOf(ctx.state).task_definition = res.taskDefinitionArn;
    return ok({ task_definition: res.taskDefinitionArn, service: res.serviceArn, created: res.created });
  },
};

export const ecsRollout: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const plan = await deployPlan(ctx);
    const stable = await withEcs(ctx, (t) => waitServiceStable(ctx, t, plan, ecsStateOf(ctx.state).task_definition));
    return ok({ stable: true, ...stable });
  },
};

export const ecsHealth: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const plan = await deployPlan(ctx);
    const live = await withEcs(ctx, (t) => t.liveStatus(plan, { signal: ctx.signal }));
    ecsStateOf(ctx.state).endpoints = live.endpoints.map((url) => ({ service: plan.container.service, url }));
    return ok({ healthy: true, workloads: live.workloads, rollout: live.rollout });
  },
};

export const ecsIngress: PhaseDef = {
  name: 'ingress',
  async run(ctx) {
    const endpoints = ecsStateOf(ctx.state).endpoints ?? [];
    return ok({ endpoints, reason: "each running task's public IP (seed 002); no proxy or DNS in front" });
  },
};
