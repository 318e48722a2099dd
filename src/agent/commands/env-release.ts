import type { CommandHandler } from './handler.js';

/**
 * env.release (`separate`): stop managing the env without touching its workload. Its processes
 * keep running unsupervised, its state is forgotten, and every later command for it is refused
 * (the dispatcher checks `ctx.released`). Idempotent.
 */
export const envRelease: CommandHandler<'env.release'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      // Recorded as released (with its pids) before the runtime forgets it: after a crash in
      // between, the agent drops the leftover state at its next start (agent.ts), so a released
      // env is never supervised again and never unrecorded.
      const pids = ctx.runtime.list(p.env).map((r) => r.pid).filter((pid): pid is number => pid !== null);
      await ctx.released.add(p.env, pids);
      await ctx.runtime.release(p.env);
      // Ports stay reserved: the workload still listens on them.
      return { released: true, left_running: pids };
    }),
};
