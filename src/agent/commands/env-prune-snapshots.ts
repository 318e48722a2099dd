import { snapshotUsage } from '../datasets/snapshot-usage.js';
import type { CommandHandler } from './handler.js';

/**
 * env.prune_snapshots: delete the snapshots the control plane's retention decided to prune
 * (`remove`), never one it keeps (`keep` wins over `remove`), and leave anything it did not name
 * alone — a snapshot taken after the decision is not in `remove`. Runs under the env lock, so
 * never beside a snapshot, fork or restore of the same env. Idempotent: a snapshot already gone
 * is skipped (and not reported as removed).
 */
export const envPruneSnapshots: CommandHandler<'env.prune_snapshots'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const keep = new Set(p.keep);
      const removed: string[] = [];
      let freed = 0;
      for (const name of p.remove) {
        if (keep.has(name)) continue;
        const { bytes } = await snapshotUsage(ctx.datasets, p.env, name);
        if (await ctx.datasets.removeSnapshot(p.env, name)) {
          removed.push(name);
          freed += bytes;
        }
      }
      return { removed, kept: await ctx.datasets.listSnapshots(p.env), freed_bytes: freed };
    }),
};
