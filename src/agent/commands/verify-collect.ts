import type { CommandHandler } from './handler.js';
import { liveService } from '../envs/live-service.js';
import { collectTree } from '../verify/collect-tree.js';
import { collectedDir } from '../verify/collected-dir.js';

/**
 * verify.collect: freeze the AI agent's service and copy what it produced. The service is held
 * paused first (SIGSTOP of its process group, kept across snapshots and agent restarts until
 * env.resume), so nothing changes under the copy and there is no gap between "stop" and
 * "collect". Then its declared paths, relative to its working dir, are copied by `collectTree`
 * into the agent's own `collected/<env>/<capture>` directory; what is refused is listed.
 *
 * Re-runnable: a second run for the same capture re-pauses (a no-op) and rebuilds the copy.
 * Runs under the env's lock, so it never interleaves with a snapshot or a destroy of the env.
 */
export const verifyCollect: CommandHandler<'verify.collect'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const rec = await liveService(ctx, p.env, p.service);
      const paused = await ctx.runtime.hold(rec);
      const root = ctx.runtime.contextOf(rec).cwd;
      const outcome = await collectTree(root, p.paths, collectedDir(ctx.workloads, p.env, p.capture), p.limits);
      return { ...outcome, paused };
    }),
};
