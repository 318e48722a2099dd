import { rm } from 'node:fs/promises';
import { retireSlots } from '../envs/docker-slots.js';
import { stopVersionsExcept } from '../envs/stop-services.js';
import { envLogDir } from '../runtimes/process/service-env.js';
import { collectedEnvDir, verifyRunDir } from '../verify/collected-dir.js';
import { envWorkloadsDir } from '../envs/env-dirs.js';
import type { CommandHandler } from './handler.js';

/**
 * env.destroy: stop every process of the env (all versions), delete its datasets, snapshots,
 * logs, state, work dir and what verify collected from it, release its ports and its user. Idempotent: destroying an env this host does not know
 * answers zero counts.
 */
export const envDestroy: CommandHandler<'env.destroy'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      const { processes, ports } = await stopVersionsExcept(ctx, p.env, null);
      // Image services: containers, env files, records and ports of the env's docker slots.
      const containers = ctx.pipeline ? await retireSlots(ctx.pipeline, p.env, null) : 0;
      const { datasets, snapshots } = await ctx.datasets.destroy(p.env);
      await ctx.runtime.forgetEnv(p.env);
      await rm(envLogDir(ctx.dataDir, p.env), { recursive: true, force: true });
      for (const dir of [collectedEnvDir(ctx.workloads, p.env), verifyRunDir(ctx.workloads, p.env), envWorkloadsDir(ctx.workloads, p.env)]) await rm(dir, { recursive: true, force: true });
      await ctx.identities.release(p.env);
      await ctx.pipeline?.admitted.forget(p.env);
      return { removed: { processes: processes + containers, datasets, snapshots, ports } };
    }),
};
