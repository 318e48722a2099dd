import type { CommandHandler } from './handler.js';

/**
 * env.release (`separate`): stop managing the env without touching its workload. Its processes
 * keep running unsupervised, its state is forgotten, and every later command for it is refused
 * (the dispatcher checks `ctx.released`). Idempotent.
 */
export const envRelease: CommandHandler<'env.release'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const left = await ctx.runtime.release(p.env);
      // Ports stay reserved: the workload still listens on them.
      await ctx.released.add(p.env);
      return { released: true, left_running: left };
    }),
};
