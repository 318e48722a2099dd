/**
 * Stopping services and giving back their ports, the one way every command does it.
 */
import type { AgentContext } from '../context.js';
import { serviceKey, type ServiceIdentity } from '../runtimes/process/service-env.js';

/** Stop each service and release its port; returns how many live processes were stopped. */
export async function stopServices(ctx: AgentContext, ids: readonly ServiceIdentity[]): Promise<number> {
  let stopped = 0;
  await Promise.all(
    ids.map(async (id) => {
      if (await ctx.runtime.stop(id)) stopped++;
      await ctx.ports.release(serviceKey(id));
    }),
  );
  return stopped;
}

/**
 * Stop every service of `env` whose version is not `keep` (all of them when `keep` is null), and
 * release every port of those versions, including ports whose process was already gone.
 */
export async function stopVersionsExcept(ctx: AgentContext, env: string, keep: string | null): Promise<{ processes: number; ports: number }> {
  const others = ctx.runtime.list(env).filter((rec) => rec.version !== keep);
  const stopped = await Promise.all(others.map((rec) => ctx.runtime.stop(rec)));
  const processes = stopped.filter(Boolean).length;
  const ports = await ctx.ports.releaseWhere((owner) => owner.startsWith(`${env}/`) && (keep === null || !owner.startsWith(`${env}/${keep}/`)));
  return { processes, ports };
}
