import { rm } from 'node:fs/promises';
import { DenvError } from '../../contracts/errors.js';
import { reownMovedTree } from '../identity/ownership.js';
import { DYNAMIC_UID_MAX, DYNAMIC_UID_MIN } from '../identity/uid-registry.js';
import { digestFile, transferFile } from '../transfer/transfer-files.js';
import type { CommandHandler } from './handler.js';

/**
 * env.import (move, on the target host): the archive the control plane wrote here chunk by chunk
 * for `transfer` is checked against the source's size and sha256, unpacked as the env's snapshot
 * `snapshot`, and the env's live datasets are made from that snapshot (the snapshot stays, as
 * after a deploy). Files the source's uid of the env owned become this host's uid of the env.
 *
 * Refused when the env already has services here (a copy an earlier move left: stale data). A
 * re-delivery after the archive was consumed answers from the snapshot it made.
 */
export const envImport: CommandHandler<'env.import'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      // Services of the env here that this move did not start: a copy an earlier move could not
      // retire. Its data is stale; the move must not start on it (its undo destroys it here).
      if (ctx.runtime.list(p.env).length > 0) {
        throw new DenvError('CONFLICT', `env ${p.env} still has services on this host (left by an earlier move or deploy): its data here is not the env's; destroy it here first`);
      }
      const t0 = performance.now();
      const file = transferFile(ctx.dataDir, p.transfer, 'in');
      const received = await digestFile(file).catch(() => null);
      if (received === null && (await ctx.datasets.hasSnapshot(p.env, p.snapshot))) {
        const datasets = (await ctx.datasets.snapshotDatasets(p.env, p.snapshot)).map((d) => d.name);
        return { datasets, imported_in_ms: 0, reowned: 0, already: true };
      }
      if (received === null) throw new DenvError('BAD_REQUEST', `transfer ${p.transfer}: nothing was received on this host`);
      if (received.bytes !== p.bytes || received.sha256 !== p.sha256) {
        throw new DenvError('AGENT_ERROR', `transfer ${p.transfer}: received ${received.bytes} bytes with sha256 ${received.sha256}; the source sent ${p.bytes} bytes with sha256 ${p.sha256}`);
      }
      const datasets = await ctx.datasets.importSnapshot(p.env, p.snapshot, p.format, file);
      await ctx.datasets.restore(p.env, p.snapshot, datasets);
      const identity = await ctx.identities.envIdentity(p.env);
      let reowned = 0;
      if (identity) for (const name of datasets) reowned += await reownMovedTree(ctx.datasets.path(p.env, name), identity, { min: DYNAMIC_UID_MIN, max: DYNAMIC_UID_MAX });
      await rm(file, { force: true });
      return { datasets, imported_in_ms: Math.round(performance.now() - t0), reowned, already: false };
    }),
};
