import { rename, rm } from 'node:fs/promises';
import type { TransferArchive } from '../../contracts/protocol.js';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';
import { digestFile, ensureTransfersDir, transferFile } from '../transfer/transfer-files.js';
import type { CommandHandler } from './handler.js';

/**
 * env.export (move, on the source host): snapshot `snapshot` of the env's datasets written as one
 * archive for `transfer` (a `btrfs send` stream or a tar, archive-argv.ts), then its size and
 * sha256 recorded beside it. The control plane then reads it in chunks (transfer_read).
 *
 * Idempotent: the archive is written to `<id>.out.tmp` and renamed once complete, and its
 * description last (atomically); a re-delivery finds the description and answers from it.
 */
export const envExport: CommandHandler<'env.export'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const meta = transferFile(ctx.dataDir, p.transfer, 'json');
      const made = (await readJsonOrNull(meta)) as TransferArchive | null;
      if (made) return made;
      await ensureTransfersDir(ctx.dataDir);
      const file = transferFile(ctx.dataDir, p.transfer, 'out');
      const tmp = `${file}.tmp`;
      await rm(tmp, { force: true });
      const t0 = performance.now();
      let datasets: string[];
      try {
        datasets = await ctx.datasets.exportSnapshot(p.env, p.snapshot, p.volumes, p.format, tmp);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      const { bytes, sha256 } = await digestFile(tmp);
      await rename(tmp, file);
      const archive: TransferArchive = { transfer: p.transfer, format: p.format, bytes, sha256, datasets, exported_in_ms: Math.round(performance.now() - t0) };
      await writeJsonAtomic(meta, archive, 0o600);
      return archive;
    }),
};
