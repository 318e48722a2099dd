import { DEFAULT_COLLECT_LIMITS } from '../../../contracts/verify.js';
import { connectedHost } from '../host-link.js';
import { ok, type PhaseDef } from '../phase.js';
import { loadVersion, versionOfDeployment } from '../versions.js';
import { stateOf } from './state.js';

/**
 * Create the capture version (the current spec, numbered next) and send verify.collect: the agent
 * service is paused and stays paused, its declared `x-denv.agent.paths` are copied into the
 * agent's own directory for the capture, and everything that is not a regular file or directory
 * inside the service root is refused and listed. Refusals do not fail the phase: they are
 * evidence the grade and verdict carry (`refused: true`).
 */
export const collect: PhaseDef = {
  name: 'collect',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    const version = (await loadVersion(ctx.db, state.version!))!;
    const host = await connectedHost(ctx, env.host, 'collect');
    const capture = await versionOfDeployment(ctx.db, ctx.deployment, version.spec);
    Object.assign(state, { host, capture: capture.id });
    const res = await ctx.call(host, 'verify.collect', {
      env: env.id,
      service: state.agent_service!,
      paths: [...(version.spec.agent?.paths ?? [])],
      capture: capture.id,
      limits: DEFAULT_COLLECT_LIMITS,
    });
    state.collect = res;
    return ok({ files: res.files, bytes: res.bytes, missing: res.missing, refused: res.refused, refused_count: res.refused_count, agent_paused: res.paused, capture: capture.id });
  },
};
