import { PhaseFailed, ok, skipped, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** How often join looks for the machine's host. */
const POLL_MS = 200;

/** Wait for the provisioned machine's agent to connect (seed 000: up to 6 minutes, the engine's
 *  `joinTimeoutMs`), then place the env on its host. Skipped when provision was. */
export const join: PhaseDef = {
  name: 'join',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (state.host || !state.machine) return skipped({ reason: 'host already placed' });
    const started = Date.now();
    for (;;) {
      const rows = await ctx.db.query<{ host: string | null }>(
        "select m.host from machines m join hosts h on h.id = m.host where m.id = $1 and h.status = 'connected' and h.connected_to is not null",
        [state.machine],
      );
      const host = rows[0]?.host;
      if (host) {
        state.host = host;
        await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [ctx.deployment.env, host]);
        return ok({ host, joined_in_ms: Date.now() - started });
      }
      if (Date.now() - started > ctx.config.joinTimeoutMs) {
        throw new PhaseFailed(`the provisioned machine's agent did not connect within ${Math.round(ctx.config.joinTimeoutMs / 1000)} s`, { host: null, joined_in_ms: null });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      ctx.signal.throwIfAborted();
    }
  },
};
