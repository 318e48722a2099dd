/**
 * `GET /v1/envs/{env}/snapshots`: the env's snapshots, whether retention keeps each and why (the
 * same decision the retention sweep applies: retention/keep-set.ts), and their sizes as the host
 * reports them (`env.snapshots`). When the host cannot answer, the list is still given, without
 * sizes, and `error` says why.
 */
import type { EnvSnapshot, EnvSnapshotList } from '../../contracts/snapshots.js';
import type { SnapshotUsage } from '../../contracts/protocol.js';
import { messageOf } from '../../contracts/errors.js';
import { DEFAULT_KEEP_SNAPSHOTS, decideRetention, describeReason } from '../retention/keep-set.js';
import { iso } from '../store/rows.js';
import { retentionReads } from '../store/snapshot-retention.js';
import { askAgent } from '../telemetry/agent-requests.js';
import { findEnv } from './lookup.js';
import { route } from './route.js';

/** Reading sizes walks the snapshots on the host: allow it longer than a status probe. */
const SIZES_TIMEOUT_MS = 30_000;

export const envSnapshotRoutes = [
  route({
    method: 'GET', url: '/v1/envs/:env/snapshots', summary: "List an environment's snapshots: version, whether retention keeps it and why, bytes on the host",
    async handler({ db, agents, keepSnapshots }, { auth, params }): Promise<EnvSnapshotList> {
      const env = await findEnv(db, auth.team, params.env!);
      const keepRecent = keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
      const reads = await retentionReads(db, env.id);
      const decision = decideRetention({ ...reads, currentVersion: env.current_version, keepRecent });
      let onHost: Map<string, SnapshotUsage> | null = null;
      let error: string | null = null;
      if (env.status === 'torn_down' || env.status === 'separated') error = `env is ${env.status}: its host keeps no snapshots of it`;
      else {
        try {
          const answer = await askAgent(agents, env.host, 'env.snapshots', { env: env.id }, SIZES_TIMEOUT_MS);
          onHost = new Map(answer.snapshots.map((s) => [s.name, s]));
        } catch (err) {
          error = messageOf(err);
        }
      }
      const items: EnvSnapshot[] = [];
      const listed = new Set<string>();
      for (const v of [...reads.versions].reverse()) {
        const name = v.snapshot ?? v.id;
        const usage = onHost?.get(name);
        if (!usage && (v.snapshot === null || v.snapshot_pruned_at)) continue; // no snapshot of it exists (any more)
        listed.add(name);
        const reasons = decision.keep.get(v.id) ?? [];
        items.push({
          snapshot: name, version: v.id, number: v.number, healthy: v.healthy, created_at: iso(v.created_at),
          kept: reasons.length > 0, reasons: reasons.map(describeReason), pruned_at: iso(v.snapshot_pruned_at),
          on_host: onHost ? Boolean(usage) : null, bytes: usage?.bytes ?? null, datasets: usage?.datasets ?? null,
        });
      }
      for (const [name, usage] of onHost ?? []) {
        if (listed.has(name)) continue;
        items.push({ snapshot: name, version: null, number: null, healthy: null, created_at: null, kept: false, reasons: [], pruned_at: null, on_host: true, bytes: usage.bytes, datasets: usage.datasets });
      }
      const total = onHost ? [...onHost.values()].reduce((n, s) => n + s.bytes, 0) : null;
      return { items, next: null, keep_recent: keepRecent, total_bytes: total, error };
    },
  }),
];
