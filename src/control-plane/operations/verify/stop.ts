import { ok, PhaseFailed, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { stateOf } from './state.js';

/**
 * Recorded only: which service is frozen and how. The freeze itself happens inside `collect`
 * (verify.collect pauses the service and copies under the same lock), so no gap lets the agent
 * change its output between "stop" and the copy.
 */
export const stop: PhaseDef = {
  name: 'stop',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    state.version ??= env.current_version ?? undefined;
    const version = state.version ? await loadVersion(ctx.db, state.version) : undefined;
    if (!version) throw new PhaseFailed('the env has no current version');
    if (!version.spec.agent) throw new PhaseFailed('x-denv.agent.service: required for verify');
    if (!version.spec.verifier) throw new PhaseFailed('x-denv.verifier: required for verify');
    state.agent_service = version.spec.agent.service;
    return ok({ agent_service: state.agent_service, mode: 'pause' });
  },
};
