import { setTimeout as sleep } from 'node:timers/promises';
import { DenvError } from '../../contracts/errors.js';
import { followVersion } from '../edge/follow-version.js';
import { assertRunnable, startVersion } from '../envs/start-version.js';
import { retireSlots, stopSlots } from '../envs/docker-slots.js';
import { imageServiceNames } from '../envs/start-images.js';
import { stopVersionsExcept } from '../envs/stop-services.js';
import type { CommandHandler } from './handler.js';

/**
 * env.rollback: make `version` the one running. Without data restore: adopt or start it (the
 * env.create path), and once it is healthy move the env's edge relay routes to it, drain, and stop
 * every other version. With `restore_data` and a
 * `snapshot`: stop everything first (datasets must not change under a live process), restore the
 * datasets from the snapshot, then start. A version that fails to come up leaves the other
 * versions running (unless they were stopped for the restore).
 */
export const envRollback: CommandHandler<'env.rollback'> = {
  run: (p, ctx, receivedAt) =>
    ctx.envLocks.run(p.env, async () => {
      assertRunnable(p.services, ctx.pipeline?.docker != null);
      let restored: string | null = null;
      if (p.restore_data && p.snapshot !== null) {
        if (!(await ctx.datasets.hasSnapshot(p.env, p.snapshot))) {
          throw new DenvError('NOT_FOUND', `snapshot "${p.snapshot}" of env ${p.env} does not exist on this host`);
        }
        await stopVersionsExcept(ctx, p.env, null);
        // Containers too (records kept): their mounts must not see the restore, and come back on the restored datasets.
        if (ctx.pipeline) await stopSlots(ctx.pipeline, p.env);
        await ctx.datasets.restore(p.env, p.snapshot, p.volumes);
        restored = p.snapshot;
      }
      const result = await startVersion(ctx, { ...p, activate: true }, receivedAt);
      if (result.outcome === 'healthy') {
        // The edge follows before the others stop; they finish what they were serving (follow-version.ts).
        const { drainMs } = await followVersion(ctx.pipeline?.edge.relay, p.env, result.endpoints, p.services);
        if (drainMs > 0) await sleep(drainMs);
        await stopVersionsExcept(ctx, p.env, p.version);
        // Image services the version does not have: their containers go too.
        if (ctx.pipeline) await retireSlots(ctx.pipeline, p.env, imageServiceNames(p.services));
      }
      return { ...result, restored };
    }),
};
