import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { stateOf } from './state.js';

export const ANSWER_TIMEOUT_MS = 30_000;

/** After the unpause, the env must answer: `true` run in its first service exits 0. */
export const health: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const version = (await loadVersion(ctx.db, state.version!))!;
    const service = Object.keys(version.spec.services)[0]!;
    const res = await ctx.call(state.host!, 'env.exec', { env: ctx.deployment.env, service, command: ['true'], timeout_ms: ANSWER_TIMEOUT_MS });
    if (res.exit !== 0) throw new PhaseFailed(`\`true\` in service ${service} ${res.timed_out ? 'timed out' : `exited with ${res.exit}`}`, { answered: false, service, exit: res.exit });
    return ok({ answered: true, service });
  },
};
