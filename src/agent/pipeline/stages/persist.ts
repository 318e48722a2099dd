/**
 * persist (seed 004, stage 10): advance the slot's last-good record — digest, env hash, edge
 * state — atomically, keeping the deploy it replaces as `previous` (what the next failed health
 * check rolls back to), then drop env files neither of them uses. If the record cannot be written
 * the deploy is rolled back, so the record always describes what runs.
 */
import { slotFileKey } from '../../runtimes/docker/slot.js';
import { ok, type Stage } from '../stage.js';

export const persist: Stage = {
  name: 'persist',
  onFailure: 'rollback',
  async run({ host, req, state }) {
    const deployed = { ...state.deployed!, edge: state.edge };
    const before = state.record?.current ?? null;
    // Recreating the same deploy (its container had gone) must not push the real previous one out.
    const same = before !== null && before.digest === deployed.digest && before.env_hash === deployed.env_hash && before.config_hash === deployed.config_hash;
    const previous = same ? (state.record?.previous ?? null) : before;
    await host.slots.write(req.slot, deployed, previous);
    const keep = [deployed.env_file, previous?.env_file].filter((f): f is string => typeof f === 'string');
    const pruned = await host.envFiles.prune(slotFileKey(req.slot), keep);
    return ok(undefined, {
      digest: deployed.digest,
      env_hash: deployed.env_hash.slice(0, 24),
      edge: { proxy: deployed.edge.proxy.status, dns: deployed.edge.dns.status },
      previous_digest: previous?.digest ?? null,
      env_files_pruned: pruned,
    });
  },
};
