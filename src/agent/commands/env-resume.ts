import type { CommandHandler } from './handler.js';

/** env.resume: let services held paused (verify.collect's frozen agent) run again. Idempotent. */
export const envResume: CommandHandler<'env.resume'> = {
  run: (p, ctx) => ctx.envLocks.run(p.env, async () => ({ resumed: await ctx.runtime.unhold(p.env, p.service) })),
};
