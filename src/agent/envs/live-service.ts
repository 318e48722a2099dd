import { DenvError } from '../../contracts/errors.js';
import type { AgentContext } from '../context.js';
import type { ServiceRecord } from '../runtimes/process/env-state.js';

/**
 * The live process of `service` in `env`: the most recently started one that is alive (during a
 * deploy two versions may run side by side). Throws NOT_FOUND when none runs on this host.
 */
export async function liveService(ctx: AgentContext, env: string, service: string): Promise<Readonly<ServiceRecord>> {
  const candidates = ctx.runtime.list(env).filter((r) => r.service === service && r.state !== 'exited');
  for (const rec of candidates.reverse()) if (await ctx.runtime.isAlive(rec)) return rec;
  throw new DenvError('NOT_FOUND', `service ${service} of env ${env} is not running on this host`);
}
