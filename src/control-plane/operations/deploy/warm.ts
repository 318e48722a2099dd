import { PhaseFailed, ok, skipped, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';
import { paramsOf, stateOf } from './state.js';

export const WARM_TIMEOUT_MS = 600_000;

/** Run the warm command (request `warm`, else `x-denv.warm`) in the first service; non-zero exit fails. */
export const warm: PhaseDef = {
  name: 'warm',
  async run(ctx) {
    const { spec, warm: requested } = paramsOf(ctx.deployment.params);
    const command = requested ?? spec.warm;
    if (!command || command.length === 0) return skipped({ reason: 'no warm command' });
    const service = Object.keys(spec.services)[0]!;
    const host = await connectedHost(ctx, stateOf(ctx.state).host, 'warm');
    const res = await ctx.call(host, 'env.exec', { env: ctx.deployment.env, service, command: [...command], timeout_ms: WARM_TIMEOUT_MS });
    if (res.timed_out) throw new PhaseFailed(`warm command timed out after ${WARM_TIMEOUT_MS / 1000} s`, { exit: res.exit, stderr: res.stderr });
    if (res.exit !== 0) throw new PhaseFailed(`warm command exited with ${res.exit}`, { exit: res.exit, stderr: res.stderr });
    return ok({ exit: 0 });
  },
};
