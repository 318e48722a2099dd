import type { HostFacts } from '../../../contracts/domain.js';
import { connectedHost } from '../host-link.js';
import { whyNotFit, specNeeds } from '../deploy/host-fit.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/**
 * Where the env goes, checked again now (the API checked when it was asked): the target is a
 * connected host of the team, not the env's own, not drained, and can hold the current version's
 * spec. The datasets travel as a `btrfs send` stream when both hosts keep them on btrfs, else
 * as a tar archive. Evidence: {from, to, format, version}.
 */
export const place: PhaseDef = {
  name: 'place',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    const { to } = paramsOf(ctx.deployment.params);
    // A re-run after the switch must not read the new host as the one moved from.
    state.from ??= env.host ?? undefined;
    const from = await connectedHost(ctx, state.from, 'place');
    const version = env.current_version ? await loadVersion(ctx.db, env.current_version) : undefined;
    if (!version) throw new PhaseFailed('the env has no current version to move', { from, to });
    const rows = await ctx.db.query<{ id: string; facts: HostFacts | null; drained: boolean; status: string }>(
      'select id, facts, drained_at is not null as drained, status from hosts where team = $1 and id = any($2)',
      [ctx.deployment.team, [from, to]],
    );
    const target = rows.find((r) => r.id === to);
    if (!target || target.status === 'removed') throw new PhaseFailed(`host ${to} is not a host of this team`, { from, to });
    if (to === from) throw new PhaseFailed(`the env already runs on ${to}`, { from, to });
    if (target.drained) throw new PhaseFailed(`host ${to} is drained: it takes no env`, { from, to, reason: 'drained' });
    const why = whyNotFit(specNeeds(version.spec), target.facts);
    if (why) throw new PhaseFailed(`host ${to} cannot hold the env: ${why}`, { from, to, reason: why });
    await connectedHost(ctx, to, 'place');
    const source = rows.find((r) => r.id === from);
    const format = source?.facts?.dataset_driver === 'btrfs' && target.facts?.dataset_driver === 'btrfs' ? 'btrfs' : 'tar';
    Object.assign(state, { from, to, version: version.id, format });
    return ok({ from, to, format, version: version.id, reason: format === 'btrfs' ? 'both hosts keep datasets on btrfs: send/receive' : 'datasets as a tar archive' });
  },
};
