import { PhaseFailed, ok, skipped, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Wait for the provisioned machine's agent to connect (seed 000: up to 6 minutes, the engine's
 *  `joinTimeoutMs`), then place the env on its host. Skipped when provision was. Woken by every
 *  host that connects (the gateway's `waitForHost`), not by polling. */
export const join: PhaseDef = {
  name: 'join',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (state.host || !state.machine) return skipped({ reason: 'host already placed' });
    const started = Date.now();
    const machineHost = async () =>
      (await ctx.db.query<{ host: string }>(
        "select m.host from machines m join hosts h on h.id = m.host where m.id = $1 and h.status = 'connected' and h.connected_to is not null",
        [state.machine],
      ))[0]?.host ?? null;
    // Any host may be the machine's: its id is known only once its agent has enrolled.
    const host = await ctx.agents.waitForHost(() => true, machineHost, ctx.config.joinTimeoutMs, ctx.signal);
    ctx.signal.throwIfAborted();
    if (!host) throw new PhaseFailed(`the provisioned machine's agent did not connect within ${Math.round(ctx.config.joinTimeoutMs / 1000)} s`, { host: null, joined_in_ms: null });
    state.host = host;
    await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [ctx.deployment.env, host]);
    return ok({ host, joined_in_ms: Date.now() - started });
  },
};
