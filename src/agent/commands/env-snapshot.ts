import { pauseSlots, resumeSlots } from '../envs/docker-slots.js';
import type { CommandHandler } from './handler.js';

/**
 * env.snapshot: a consistent snapshot (DESIGN §8). Every running service of the env (all
 * versions) is SIGSTOPped, each dataset copied into snapshot `name`, then everything is
 * SIGCONTed — always, even when the copy fails. `frozen_for` is pause → resume in ms (0 when
 * nothing ran); `consistent` is true when every running service was confirmed paused.
 */
export const envSnapshot: CommandHandler<'env.snapshot'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(p.env, async () => {
      // No dataset, nothing that could be caught half-written: the snapshot is the (empty) set of
      // datasets, consistent by definition, and nobody is paused for it.
      if (p.volumes.length === 0) {
        return { snapshot: p.name, datasets: await ctx.datasets.snapshot(p.env, p.name, []), frozen_for: 0, consistent: true };
      }
      const pausedAt = Date.now();
      let pause = { total: 0, paused: 0 };
      let containers: string[] = [];
      let datasets: string[];
      try {
        pause = await ctx.runtime.pause(p.env);
        // Image services freeze with `docker pause` (cgroup freezer); a pause that fails throws: no unfrozen snapshot.
        if (ctx.pipeline) containers = await pauseSlots(ctx.pipeline, p.env);
        datasets = await ctx.datasets.snapshot(p.env, p.name, p.volumes);
      } finally {
        ctx.runtime.resume(p.env);
        if (ctx.pipeline) await resumeSlots(ctx.pipeline, containers);
      }
      pause = { total: pause.total + containers.length, paused: pause.paused + containers.length };
      const frozenFor = pause.total > 0 ? Date.now() - pausedAt : 0;
      return { snapshot: p.name, datasets, frozen_for: frozenFor, consistent: pause.paused === pause.total };
    }),
};
