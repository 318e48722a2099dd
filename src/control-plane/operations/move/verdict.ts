import { messageOf } from '../../../contracts/errors.js';
import type { PhaseDef } from '../phase.js';
import { tookMs } from '../versions.js';
import { moveSnapshotName, stateOf, transferIdOf } from './state.js';

/**
 * Success: the env runs on the new host only; the move's snapshot there (no version names it, so
 * retention never would) is removed. Failure before `switch`: the env never left — it serves on
 * the old host as before; what the move made on the new host is destroyed and the move's snapshot
 * on the old one removed (`undone`). Failure after `switch` (its edge change, or `retire`): the env
 * runs on the new host; the old host is emptied here if it can be (`retired`), else the evidence
 * names what it still holds (`left_on`). Transfer files are dropped on both hosts either way.
 * Evidence: {env, from, to, runs_on, took_ms, bytes, undone? | retired? | left_on?}.
 */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const id = transferIdOf(ctx.deployment.id);
    for (const host of [state.from, state.to]) if (host) ctx.agents.transfers.close(host, id);
    const base = { env: ctx.deployment.env, from: state.from ?? null, to: state.to ?? null, took_ms: tookMs(ctx), bytes: state.archive?.bytes ?? 0 };
    const env = ctx.deployment.env;
    const snapshot = moveSnapshotName(ctx.deployment.id);
    if (!ctx.failure) {
      const pruned = await best(ctx.call(state.to!, 'env.prune_snapshots', { env, keep: [], remove: [snapshot] }, 'target-snapshot').then((r) => ({ removed: r.removed })));
      return { status: 'ok', evidence: { ...base, runs_on: state.to, move_snapshot: pruned }, outcome: 'succeeded' };
    }
    if (state.switched) {
      // retire did not run (switch failed after its commit) or failed: the old host must not keep serving.
      const retired = ctx.failure.phase === 'retire' ? null : await best(ctx.call(state.from!, 'env.destroy', { env }, 'undo-retire').then((r) => r.removed));
      const ok = retired !== null && !('error' in retired);
      return { status: 'ok', evidence: { ...base, runs_on: state.to, ...(ok ? { retired } : { left_on: state.from, ...(retired ? { retire_error: retired } : {}) }) }, outcome: 'failed' };
    }
    // `place` ran nothing on a host; past it, the new host may hold what the move made and the old
    // one the move's snapshot (each step is idempotent: a missing env or snapshot is fine).
    const undone: Record<string, unknown> = {};
    if (ctx.failure.phase !== 'place') {
      if (state.to) undone.target = await best(ctx.call(state.to, 'env.destroy', { env }, 'undo-target').then((r) => r.removed));
      if (state.from) undone.snapshot = await best(ctx.call(state.from, 'env.prune_snapshots', { env, keep: [], remove: [snapshot] }, 'undo-snapshot').then((r) => ({ removed: r.removed })));
    }
    return { status: 'ok', evidence: { ...base, runs_on: state.from ?? null, undone }, outcome: 'failed' };
  },
};

/** Best effort: a failure is evidence, never the verdict's failure. */
function best<T extends object>(work: Promise<T>): Promise<T | { error: string }> {
  return work.catch((err: unknown) => ({ error: messageOf(err) }));
}
