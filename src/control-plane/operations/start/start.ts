import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { connectedHost } from '../host-link.js';
import { activateVersion, loadVersion } from '../versions.js';

/**
 * Re-apply the env's current version — the stored plan — through the same path as a deploy:
 * env.rollback to that version (without restoring data) starts its services on the host, adopting
 * any that still run, and waits for health. The result is kept for `health`.
 */
export const start: PhaseDef = {
  name: 'start',
  async run(ctx) {
    const env = await ctx.env();
    if (!env.current_version) throw new PhaseFailed('the env has no current version to start');
    const version = await loadVersion(ctx.db, env.current_version);
    if (!version) throw new PhaseFailed(`version ${env.current_version} not found`);
    const host = await connectedHost(ctx, env.host, 'start');
    const res = await activateVersion(ctx, host, version, { restoreData: false });
    ctx.state.start = res;
    if (res.outcome === 'start_failed') throw new PhaseFailed(res.message ?? 'a service did not start', { services: res.services });
    return ok({ version: version.id, started_in_ms: res.started_in_ms });
  },
};
