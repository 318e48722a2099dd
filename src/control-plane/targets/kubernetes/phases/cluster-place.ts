import { PhaseFailed, ok, type PhaseDef } from '../../../operations/phase.js';
import { clusterStateOf } from './cluster-state.js';

/** place on a cluster: the planner chose the cluster agent (the plan was made for its facts), so
 *  the env's host is it; the phase records which cluster and namespace. */
export const clusterPlace: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.host) throw new PhaseFailed('no cluster agent was chosen for this env (planning sets it)');
    const rows = await ctx.db.query<{ name: string; facts: { cluster?: { namespace: string; version: string } } | null }>('select name, facts from hosts where id = $1', [env.host]);
    clusterStateOf(ctx.state).host = env.host;
    return ok({ host: env.host, cluster: rows[0]?.name ?? null, namespace: rows[0]?.facts?.cluster?.namespace ?? null, reason: 'cluster chosen at planning' });
  },
};
