import { setTimeout } from 'node:timers/promises';
import type { EnvCreateResult } from '../../../contracts/protocol.js';
import type { Spec } from '../../../contracts/spec.js';
import { messageOf } from '../../../contracts/errors.js';
import { type PhaseContext, type PhaseDef, type PhaseResult } from '../phase.js';
import { withPublic } from '../../edge/desired-edge.js';
import { paramsOf, stateOf, type IngressState } from './state.js';
import { activateVersion, tookMs } from '../versions.js';

const endpointsOf = (r: Pick<EnvCreateResult, 'endpoints'>, ctx: PhaseContext) => withPublic(r.endpoints, stateOf(ctx.state).ingress?.desired ?? null);

/**
 * Zero-downtime cutover: when ingress moved a route's upstream from the old version to this one,
 * the old version keeps running for the longest `x-denv.edge.drain` of those services (requests it
 * took before the switch finish) before activate stops it. Nothing to drain when no route moved.
 */
export function drainMs(ingress: IngressState | undefined): number {
  if (!ingress) return 0;
  const moved = new Set((ingress.result.proxy.switched ?? []).map((c) => c.key));
  return Math.max(0, ...ingress.desired.routes.filter((r) => moved.has(r.id)).map((r) => r.drain_ms));
}

// A failed deploy keeps the data written since the last snapshot: the previous version comes
// back on the env's live datasets (restoreData false). The rollback kind restores data.
const activate = (ctx: PhaseContext, host: string, version: { id: string; spec: Spec; snapshot: string | null }, key: string) =>
  activateVersion(ctx, host, version, { restoreData: false, key });

async function succeed(ctx: PhaseContext): Promise<PhaseResult> {
  const state = stateOf(ctx.state);
  const { spec } = paramsOf(ctx.deployment.params);
  const version = { id: state.version!, spec, snapshot: state.snapshot ?? null };
  const drained = drainMs(state.ingress);
  if (drained > 0) await setTimeout(drained, undefined, { signal: ctx.signal });
  const res = await activate(ctx, state.host!, version, 'activate');
  // Both sent at once on the transaction's connection: one round trip (issue 11).
  await ctx.db.tx((tx) =>
    Promise.all([
      tx.query('update versions set healthy = true where id = $1', [version.id]),
      tx.query('update envs set current_version = $2, endpoints = $3, last_error = null, updated_at = now() where id = $1', [ctx.deployment.env, version.id, JSON.stringify(endpointsOf(res, ctx))]),
    ]),
  );
  return { status: 'ok', evidence: { version: version.id, snapshot: version.snapshot, took_ms: tookMs(ctx), ...(drained > 0 ? { drained_ms: drained } : {}) }, outcome: 'succeeded' };
}

/** Seed 004's hard gates: a pipeline that ended `failure` at one of these changed nothing on the host. */
const HARD_GATES: readonly string[] = ['admit', 'verify', 'pull'];

/**
 * When the host refused the deploy before any effect — every service's pipeline (image or
 * process) ended `failure` at a hard gate, so no container or process was touched (the agent
 * starts process services only after every image service, and none before all are admitted) —
 * the failing stage of each service; otherwise null.
 */
export function refusedBeforeAnyEffect(create: EnvCreateResult | undefined): Record<string, string> | null {
  const pipelines = Object.entries(create?.pipelines ?? {});
  if (!create || create.outcome !== 'start_failed' || pipelines.length === 0) return null;
  const refused: Record<string, string> = {};
  for (const [service, p] of pipelines) {
    const gate = p.stages.find((s) => s.status === 'failed')?.name;
    if (p.state !== 'failure' || gate === undefined || !HARD_GATES.includes(gate)) return null;
    refused[service] = gate;
  }
  return refused;
}

async function revert(ctx: PhaseContext): Promise<PhaseResult> {
  const state = stateOf(ctx.state);
  const refused = refusedBeforeAnyEffect(state.create);
  if (refused) {
    // Nothing changed: no rollback to run, the current version keeps serving as it was (issue 9:
    // a replayed envelope used to "roll back" an env nothing had touched).
    const env = await ctx.env();
    return { status: 'ok', evidence: { changed: false, refused, current_version: env.current_version, took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
  const previous = state.previous_version
    ? (await ctx.db.query<{ id: string; spec: Spec; snapshot: string | null; healthy: boolean }>('select id, spec, snapshot, healthy from versions where id = $1', [state.previous_version]))[0]
    : undefined;
  if (!previous || !previous.healthy || !state.host) {
    return { status: 'ok', evidence: { reverted: 'no previous version', took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
  try {
    if (!(await ctx.agents.waitConnected(state.host, ctx.config.agentWaitMs, ctx.signal))) throw new Error(`host ${state.host} is not connected`);
    const res = await activate(ctx, state.host, previous, 'rollback');
    // The previous version's routes were never moved (ingress runs last): its public URLs stay.
    const shown = new Map((await ctx.env()).endpoints.map((e) => [e.service, e.public]));
    const endpoints = res.endpoints.map((e) => ({ service: e.service, url: e.url, ...(shown.get(e.service) ? { public: shown.get(e.service) } : {}) }));
    await ctx.db.query('update envs set current_version = $2, endpoints = $3, updated_at = now() where id = $1', [ctx.deployment.env, previous.id, JSON.stringify(endpoints)]);
    return { status: 'ok', evidence: { reverted_to: previous.id, took_ms: tookMs(ctx) }, outcome: 'rolled_back' };
  } catch (err) {
    return { status: 'failed', evidence: { reverted: `rollback failed: ${messageOf(err)}`, took_ms: tookMs(ctx) }, outcome: 'failed' };
  }
}

/** Record the outcome. Success: the version is healthy and current, older versions stop. Failure
 *  refused by the host before any effect: `failed`, the env untouched (evidence `changed: false`).
 *  Failure with a previous healthy version and a host: env.rollback to it (`rolled_back`); otherwise `failed`. */
export const verdict: PhaseDef = {
  name: 'verdict',
  run: (ctx) => (ctx.failure ? revert(ctx) : succeed(ctx)),
};
