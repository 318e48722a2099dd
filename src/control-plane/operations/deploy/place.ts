import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { paramsOf, stateOf } from './state.js';

/** Choose the host (seed 000): the env's own host; else the requested one; else, when a cloud is
 *  requested, none (`target <cloud>`: provision makes one there); else the first connected host
 *  of the team (sidecars before provider hosts, oldest first); else none (provision decides). */
export const place: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const { target } = paramsOf(ctx.deployment.params);
    const env = await ctx.env();
    let host: string | null = null;
    let reason: string;
    if (env.host) {
      host = env.host;
      reason = 'environment already on host';
    } else if (target?.host) {
      const rows = await ctx.db.query<{ id: string }>("select id from hosts where team = $1 and (id = $2 or name = $2) and status <> 'removed'", [ctx.deployment.team, target.host]);
      if (!rows[0]) throw new PhaseFailed(`no host "${target.host}" in this team`, { host: null, reason: 'requested host not found' });
      host = rows[0].id;
      reason = 'target host requested';
    } else if (target?.cloud) {
      reason = `target ${target.cloud}`;
    } else {
      host = (await ctx.agents.connectedHosts(ctx.deployment.team))[0] ?? null;
      reason = host ? 'first connected host in team' : 'no connected host; provisioning';
    }
    state.host = host;
    if (host && host !== env.host) await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [env.id, host]);
    return ok({ host, reason });
  },
};
