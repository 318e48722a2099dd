import { snapshotUsage } from '../datasets/snapshot-usage.js';
import type { CommandHandler } from './handler.js';

/** env.snapshots: the env's snapshots on this host with the bytes of each dataset (read-only;
 *  under the env lock so a snapshot being pruned or replaced is never half counted). */
export const envSnapshots: CommandHandler<'env.snapshots'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const snapshots = [];
      for (const name of await ctx.datasets.listSnapshots(p.env)) snapshots.push(await snapshotUsage(ctx.datasets, p.env, name));
      return { snapshots };
    }),
};
