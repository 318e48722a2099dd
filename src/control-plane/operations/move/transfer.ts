import { ok, skipped, type PhaseDef } from '../phase.js';
import { relay, RELAY_CHUNK_BYTES, RELAY_WINDOW } from './relay.js';
import { stateOf, transferIdOf } from './state.js';

/**
 * The snapshot's datasets from the old host to the new one, over the two agents' own connections:
 * env.export writes them as one archive on the source (btrfs send, or tar), the control plane
 * relays it in chunks with a window (relay.ts), and env.import on the target checks its size and
 * sha256, unpacks it as the same snapshot and makes the env's live datasets from it. Skipped when
 * there is no dataset. Evidence: {format, bytes, sha256, datasets, chunks, exported_in_ms,
 * transferred_in_ms, mib_per_s, imported_in_ms, reowned}.
 */
export const transfer: PhaseDef = {
  name: 'transfer',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (!state.snapshot) {
      state.archive = null;
      state.imported = null;
      return skipped({ reason: 'no dataset to carry' });
    }
    const env = ctx.deployment.env;
    const id = transferIdOf(ctx.deployment.id);
    const from = state.from!;
    const to = state.to!;
    const archive = await ctx.call(from, 'env.export', { env, snapshot: state.snapshot.snapshot, volumes: [...state.snapshot.datasets], format: state.format!, transfer: id }, 'export');
    state.archive = archive;
    const t0 = performance.now();
    const { chunks } = await relay(
      { read: (offset, length) => ctx.agents.transfers.read(from, id, offset, length), write: (offset, data) => ctx.agents.transfers.write(to, id, offset, data) },
      archive.bytes,
      { chunkBytes: RELAY_CHUNK_BYTES, window: RELAY_WINDOW, signal: ctx.signal },
    );
    const transferredMs = Math.round(performance.now() - t0);
    const imported = await ctx.call(to, 'env.import', { env, snapshot: state.snapshot.snapshot, transfer: id, format: archive.format, bytes: archive.bytes, sha256: archive.sha256 }, 'import');
    // The archive stays on the source until the verdict: a re-run of this phase after a crash
    // reads it again (export answers from its record).
    state.imported = imported;
    return ok({
      format: archive.format, bytes: archive.bytes, sha256: archive.sha256, datasets: imported.datasets, chunks,
      exported_in_ms: archive.exported_in_ms, transferred_in_ms: transferredMs,
      mib_per_s: transferredMs > 0 ? Math.round((archive.bytes / 1024 ** 2 / (transferredMs / 1000)) * 10) / 10 : null,
      imported_in_ms: imported.imported_in_ms, reowned: imported.reowned,
    });
  },
};
