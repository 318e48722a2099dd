import { connectedHost } from '../host-link.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion, versionOfDeployment } from '../versions.js';
import { stateOf } from './state.js';

/**
 * A consistent snapshot of the running env as a new version with the current spec: the agent
 * pauses every service, snapshots every dataset named after the new version's id, resumes
 * (`frozen_for` is that pause, measured on the host). Re-run safe: the version row is found
 * again and the agent replaces a snapshot of the same name.
 */
export const snapshot: PhaseDef = {
  name: 'snapshot',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const env = await ctx.env();
    if (state.previous_version === undefined) state.previous_version = env.current_version;
    const current = state.previous_version ? await loadVersion(ctx.db, state.previous_version) : undefined;
    if (!current) throw new PhaseFailed('the env has no current version to snapshot');
    const host = await connectedHost(ctx, env.host, 'snapshot');
    const version = await versionOfDeployment(ctx.db, ctx.deployment, current.spec);
    Object.assign(state, { version: version.id, host });
    const res = await ctx.call(host, 'env.snapshot', { env: env.id, name: version.id, volumes: [...current.spec.volumes] });
    state.snapshot = res.snapshot;
    await ctx.db.query('update versions set snapshot = $2 where id = $1', [version.id, res.snapshot]);
    return ok({ snapshot: res.snapshot, datasets: res.datasets, frozen_for: res.frozen_for, consistent: res.consistent, version: version.id });
  },
};
