import { messageOf } from '../../../contracts/errors.js';
import type { PhaseContext, PhaseDef } from '../phase.js';
import { tookMs } from '../versions.js';
import { stateOf, transferIdOf, type MoveState } from './state.js';

/**
 * Success: the env runs on the new host only. Failure before `switch`: the env never left — it
 * serves on the old host as before; what the move made on the new host is destroyed and the move's
 * snapshot on the old one removed (`undone`). Failure after `switch` (the old host could not be
 * emptied): the env runs on the new host, and the evidence names what the old one still holds.
 * Transfer files are dropped on both hosts either way. Evidence: {env, from, to, runs_on, took_ms,
 * bytes, undone?}.
 */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const id = transferIdOf(ctx.deployment.id);
    for (const host of [state.from, state.to]) if (host) ctx.agents.transferClose(host, id);
    const base = { env: ctx.deployment.env, from: state.from ?? null, to: state.to ?? null, took_ms: tookMs(ctx), bytes: state.archive?.bytes ?? 0 };
    if (!ctx.failure) return { status: 'ok', evidence: { ...base, runs_on: state.to }, outcome: 'succeeded' };
    if (state.switched) return { status: 'ok', evidence: { ...base, runs_on: state.to, left_on: state.from }, outcome: 'failed' };
    return { status: 'ok', evidence: { ...base, runs_on: state.from ?? null, undone: await undo(ctx, state) }, outcome: 'failed' };
  },
};

/** Best effort, each step on its own: a failure is evidence, never the verdict's failure. */
async function undo(ctx: PhaseContext, state: MoveState): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const env = ctx.deployment.env;
  if (state.to && state.snapshot) {
    out.target = await ctx.call(state.to, 'env.destroy', { env }, 'undo-target').then((r) => r.removed, (err: unknown) => ({ error: messageOf(err) }));
  }
  if (state.from && state.snapshot) {
    const name = state.snapshot.snapshot;
    out.snapshot = await ctx.call(state.from, 'env.prune_snapshots', { env, keep: [], remove: [name] }, 'undo-snapshot').then((r) => ({ removed: r.removed }), (err: unknown) => ({ error: messageOf(err) }));
  }
  return out;
}
