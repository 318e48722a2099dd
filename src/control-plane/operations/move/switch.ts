import { appendEvent } from '../../store/events.js';
import { edgeEvidence } from '../edge-phase.js';
import { ok, type PhaseDef } from '../phase.js';
import { loadVersion, publicEndpoints } from '../versions.js';
import { stateOf } from './state.js';

/**
 * The env is on the new host from here on: its host and endpoints change in one transaction, its
 * routes and names follow (best effort, as every edge change), and an `env.moved` event says so.
 * Snapshots of its versions were made on the old host, which `retire` empties: they are marked
 * pruned now, so a rollback to one is refused with the reason instead of failing on the host.
 * Evidence: {from, to, endpoints, edge, snapshots_pruned}.
 */
export const switchHost: PhaseDef = {
  name: 'switch',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = ctx.deployment.env;
    const started = state.started!;
    const pruned = await ctx.db.tx(async (tx) => {
      await tx.query('update envs set host = $2, endpoints = $3, updated_at = now() where id = $1', [env, state.to, JSON.stringify(publicEndpoints(started))]);
      const rows = await tx.query<{ id: string }>('update versions set snapshot_pruned_at = now() where env = $1 and snapshot is not null and snapshot_pruned_at is null returning id', [env]);
      await appendEvent(tx, { team: ctx.deployment.team, subject: `env:${env}`, type: 'env.moved', data: { deployment: ctx.deployment.id, from: state.from, to: state.to } });
      return rows.length;
    });
    state.switched = true;
    const version = (await loadVersion(ctx.db, state.version!))!;
    const edge = await edgeEvidence(ctx, await ctx.env(), state.to!, version.spec.services, started.endpoints);
    if (edge.endpoints) await ctx.db.query('update envs set endpoints = $2 where id = $1', [env, JSON.stringify(edge.endpoints)]);
    return ok({ from: state.from, to: state.to, endpoints: edge.endpoints ?? publicEndpoints(started), edge: edge.evidence, snapshots_pruned: pruned });
  },
};
