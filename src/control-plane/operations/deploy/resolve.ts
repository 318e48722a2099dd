import { ok, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf } from './state.js';
import { versionOfDeployment } from '../versions.js';

/** Create the version row from the parsed spec; remember the current version for rollback.
 *  Re-run safe: a version this deployment already created is reused. */
export const resolve: PhaseDef = {
  name: 'resolve',
  async run(ctx) {
    const { spec } = paramsOf(ctx.deployment.params);
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    const version = await versionOfDeployment(ctx.db, { id: ctx.deployment.id, env: env.id }, spec);
    state.version = version.id;
    state.number = version.number;
    if (state.previous_version === undefined) state.previous_version = env.current_version;
    // `ignored`: Compose fields accepted without effect (cosmetic), so the evidence says what denv did not do.
    return ok({ version: version.id, number: version.number, services: Object.keys(spec.services), volumes: spec.volumes, previous: state.previous_version, ignored: spec.ignored ?? [] });
  },
};
