import { assertRunnable, startVersion } from '../envs/start-version.js';
import type { CommandHandler } from './handler.js';

/**
 * env.fork: a new env from a snapshot of another, on this host. The fork's datasets become
 * writable copies of the snapshot (the btrfs driver makes them O(1) copy-on-write snapshots; the
 * copy driver copies), so fork and parent never share writable data. Then the version's
 * services start on fresh ports exactly as env.create starts them (health, egress, failure
 * handling).
 *
 * Idempotent: once the fork env has services, its datasets are not forked again (a re-delivery
 * must not replace data its services already wrote); startVersion adopts what runs. The source
 * env's lock is held only while its snapshot is read, so a slow start never blocks the parent.
 */
export const envFork: CommandHandler<'env.fork'> = {
  run: (p, ctx, receivedAt) =>
    ctx.envLocks.run(p.env, async () => {
      assertRunnable(p.services, Boolean(ctx.pipeline?.docker)); // before any data is forked
      let forkedInMs = 0;
      // The fork's services run as its source's user: they own the forked data (uid-registry.ts).
      await ctx.identities.inherit(p.from_env, p.env);
      // …and may run what its source was admitted to run (process_runtime: signed).
      await ctx.pipeline?.admitted.inherit(p.from_env, p.env);
      if (ctx.runtime.list(p.env).length === 0) {
        const t0 = performance.now();
        await ctx.envLocks.run(p.from_env, () => ctx.datasets.fork(p.from_env, p.snapshot, p.env, p.volumes));
        forkedInMs = Math.round((performance.now() - t0) * 10) / 10;
      }
      const result = await startVersion(ctx, p, receivedAt);
      return { ...result, forked_in_ms: forkedInMs, from: p.snapshot };
    }),
};
