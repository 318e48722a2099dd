import { PhaseFailed, type PhaseContext } from './phase.js';

/** The host a phase talks to, once connected. Waits `agentWaitMs` for an agent that is
 *  reconnecting (e.g. after a control-plane restart); fails the phase if it does not come back. */
export async function connectedHost(ctx: PhaseContext, host: string | null | undefined, what: string): Promise<string> {
  if (!host) throw new PhaseFailed(`${what}: no host placed`);
  if (await ctx.agents.waitConnected(host, ctx.config.agentWaitMs, ctx.signal)) return host;
  throw new PhaseFailed(`host ${host} is not connected`, { host, reason: 'host not connected' });
}
