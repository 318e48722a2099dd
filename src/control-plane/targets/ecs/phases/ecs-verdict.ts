/**
 * verdict of a deploy on ECS. Success: the version is healthy and current, its endpoints the
 * tasks' public IPs. Failure with a previous healthy version: its plan is applied again (its task
 * definition revision registered anew) and awaited (`rolled_back`; ECS's circuit breaker may have
 * rolled the service back already — applying is idempotent). A failed first deploy (`failed`)
 * deletes the service it made, as teardown does (scaffolding stays): no version of the env ever
 * ran, and a `failed` env's record may be deleted, which must leave nothing running in the account
 * (seed 002). Why its tasks stopped stays in the deploy's evidence.
 */
import { messageOf } from '../../../../contracts/errors.js';
import type { PhaseContext, PhaseDef, PhaseResult } from '../../../operations/phase.js';
import { tookMs } from '../../../operations/versions.js';
import { applyOptions, deployPlan, versionPlan, waitServiceStable, withEcs } from './ecs-context.js';
import { ecsStateOf } from './ecs-state.js';

async function succeed(ctx: PhaseContext): Promise<PhaseResult> {
  const state = ecsStateOf(ctx.state);
  await ctx.db.tx(async (tx) => {
    await tx.query('update versions set healthy = true where id = $1', [state.version]);
    await tx.query('update envs set current_version = $2, endpoints = $3, last_error = null, updated_at = now() where id = $1', [ctx.deployment.env, state.version, JSON.stringify(state.endpoints ?? [])]);
  });
  return { status: 'ok', evidence: { version: state.version, took_ms: tookMs(ctx) }, outcome: 'succeeded' };
}

async function revert(ctx: PhaseContext): Promise<PhaseResult> {
  const state = ecsStateOf(ctx.state);
  const previous = state.previous_version
    ? (await ctx.db.query<{ id: string; healthy: boolean }>('select id, healthy from versions where id = $1', [state.previous_version]))[0]
    : undefined;
  if (!state.previous_version) return removeFirst(ctx);
  if (!previous?.healthy) return { status: 'ok', evidence: { reverted: 'no previous version', took_ms: tookMs(ctx) }, outcome: 'failed' };
  try {
    const { plan, spec } = await versionPlan(ctx, previous.id);
    const options = await applyOptions(ctx, plan, spec);
    await withEcs(ctx, async (t) => {
      const res = await t.apply(plan, options);
      await waitServiceStable(ctx, t, plan, res.taskDefinitionArn);
    });
    await ctx.db.query('update envs set current_version = $2, updated_at = now() where id = $1', [ctx.deployment.env, previous.id]);
    return { status: 'ok', evidence: { reverted_to: previous.id, took_ms: tookMs(ctx) }, outcome: 'rolled_back' };
  } catch (err) {
    return { status: 'failed', evidence: { reverted: `rollback failed: ${messageOf(err)}`, took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
}

/** A failed first deploy: its service is deleted (when prepare ran: it may have made one). AWS unreachable: it stays,
 *  said in the evidence; teardown deletes it. */
async function removeFirst(ctx: PhaseContext): Promise<PhaseResult> {
  const prepared = ctx.deployment.phases.some((p) => p.name === 'prepare' && (p.status === 'ok' || p.status === 'failed'));
  const plan = prepared ? await deployPlan(ctx).catch(() => null) : null;
  if (!plan) return { status: 'ok', evidence: { reverted: 'no previous version', took_ms: tookMs(ctx) }, outcome: 'failed' };
  try {
    const res = await withEcs(ctx, (t) => t.teardown(plan, { signal: ctx.signal }));
    return { status: 'ok', evidence: { reverted: 'no previous version', removed: res.existed ? [plan.service.serviceName] : [], took_ms: tookMs(ctx) }, outcome: 'failed' };
  } catch (err) {
    return { status: 'ok', evidence: { reverted: 'no previous version', left_running: plan.service.serviceName, remove_error: messageOf(err), took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
}

export const ecsVerdict: PhaseDef = {
  name: 'verdict',
  run: (ctx) => (ctx.failure ? revert(ctx) : succeed(ctx)),
};
