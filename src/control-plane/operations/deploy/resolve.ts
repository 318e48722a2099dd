import { newId } from '../../../contracts/ids.js';
import { ok, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf } from './state.js';

/** Create the version row from the parsed spec; remember the current version for rollback.
 *  Re-run safe: a version this deployment already created is reused. */
export const resolve: PhaseDef = {
  name: 'resolve',
  async run(ctx) {
    const { spec } = paramsOf(ctx.deployment.params);
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    const version = await ctx.db.tx(async (tx) => {
      const existing = await tx.query<{ id: string; number: number }>('select id, number from versions where deployment = $1', [ctx.deployment.id]);
      if (existing[0]) return existing[0];
      await tx.query('select id from envs where id = $1 for update', [env.id]);
      const [{ next }] = (await tx.query<{ next: number }>('select coalesce(max(number), 0) + 1 as next from versions where env = $1', [env.id])) as [{ next: number }];
      const id = newId('version');
      await tx.query('insert into versions (id, env, number, spec, deployment) values ($1, $2, $3, $4, $5)', [id, env.id, next, JSON.stringify(spec), ctx.deployment.id]);
      return { id, number: next };
    });
    state.version = version.id;
    state.number = version.number;
    if (state.previous_version === undefined) state.previous_version = env.current_version;
    // `ignored`: Compose fields accepted without effect (cosmetic), so the evidence says what denv did not do.
    return ok({ version: version.id, number: version.number, services: Object.keys(spec.services), volumes: spec.volumes, previous: state.previous_version, ignored: spec.ignored ?? [] });
  },
};
