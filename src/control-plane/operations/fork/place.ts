import { connectedHost } from '../host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/** A fork runs where its source snapshot is: the host of the version's env. Fails when that host
 *  is not connected (after the reconnect grace). */
export const place: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const source = await loadVersion(ctx.db, paramsOf(ctx.deployment.params).version);
    if (!source) throw new PhaseFailed('the source version no longer exists', { host: null, reason: 'source version not found' });
    const rows = await ctx.db.query<{ host: string | null }>('select host from envs where id = $1', [source.env]);
    const host = await connectedHost(ctx, rows[0]?.host, 'place');
    stateOf(ctx.state).host = host;
    await ctx.db.query('update envs set host = $2, updated_at = now() where id = $1', [ctx.deployment.env, host]);
    return ok({ host, reason: 'same host as source snapshot' });
  },
};
