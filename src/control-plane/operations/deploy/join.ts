import { PhaseFailed, ok, skipped, type PhaseDef } from '../phase.js';
import { stateOf } from './state.js';

/** Wait for the provisioned machine's agent to connect (seed 000: up to 6 minutes, the engine's
 *  `joinTimeoutMs`), then place the env on its host. Skipped when provision was. Woken by every
 *  host that connects (the gateway's `waitForHost`), not by polling; fails at once when the
 *  machine's agent is seen to end first (a local machine's process), saying how it ended. */
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
    // Any host may be the machine's: its id is known only once its agent has enrolled. A machine
    // whose agent this process sees end stops the wait at once (clouds.machineEnded).
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let ended: string | null = null;
    void ctx.clouds.machineEnded(state.machine)?.then((why) => {
      ended = why;
      stop.abort();
    });
    let host: string | null;
    try {
      host = await ctx.agents.waitForHost(() => true, machineHost, ctx.config.joinTimeoutMs, stop.signal);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      ctx.clouds.forgetEnd(state.machine);
    }
    ctx.signal.throwIfAborted();
    if (!host && ended) throw new PhaseFailed(`the provisioned machine's agent cannot join: ${ended}`, { host: null, joined_in_ms: null });
    if (!host) throw new PhaseFailed(`the provisioned machine's agent did not connect within ${Math.round(ctx.config.joinTimeoutMs / 1000)} s`, { host: null, joined_in_ms: null });
    state.host = host;
    await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [ctx.deployment.env, host]);
    return ok({ host, joined_in_ms: Date.now() - started });
  },
};
