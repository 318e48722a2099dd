import type { AgentContext } from '../context.js';
import { startVersion } from '../envs/start-version.js';
import { retireSlots } from '../envs/docker-slots.js';
import { imageServiceNames } from '../envs/start-images.js';
import { stopVersionsExcept } from '../envs/stop-services.js';
import type { CommandHandler } from './handler.js';

/**
 * env.create: start `version` beside whatever runs (adopting its own live processes). Only when
 * it comes up healthy and `retire_others` is set are the env's other versions stopped and their
 * ports released; on failure what this command started is stopped and nothing else changes.
 */
export const envCreate: CommandHandler<'env.create'> = {
  run: (p, ctx: AgentContext, receivedAt) =>
    ctx.envLocks.run(p.env, async () => {
      const result = await startVersion(ctx, p, receivedAt);
      if (result.outcome === 'healthy' && p.retire_others) {
        await stopVersionsExcept(ctx, p.env, p.version);
        if (ctx.pipeline) await retireSlots(ctx.pipeline, p.env, imageServiceNames(p.services));
      }
      return result;
    }),
};
