import { stopSlots } from '../envs/docker-slots.js';
import { stopVersionsExcept } from '../envs/stop-services.js';
import type { CommandHandler } from './handler.js';

/**
 * env.stop: scale the env to zero — every process of every version stopped and its port
 * released; datasets, snapshots and logs stay (a later env.rollback to the current version
 * starts it again). Idempotent.
 */
export const envStop: CommandHandler<'env.stop'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const { processes, ports } = await stopVersionsExcept(ctx, p.env, null);
      // Image services: containers removed, their verified records and ports kept for env.rollback.
      const containers = ctx.pipeline ? await stopSlots(ctx.pipeline, p.env) : 0;
      return { stopped: processes + containers, ports };
    }),
};
