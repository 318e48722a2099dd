/**
 * The bytes an env's snapshots hold on this host (`env.snapshots`, and the freed bytes of
 * `env.prune_snapshots`): per dataset, the sum of its file sizes, from a bounded walk that never
 * follows symlinks (telemetry/volume-usage.ts). On btrfs this is the data a snapshot references,
 * shared copy-on-write with its env's live data and other snapshots: deleting it frees at most that.
 */
import type { SnapshotUsage } from '../../contracts/protocol.js';
import { measureTree } from '../telemetry/volume-usage.js';
import type { DatasetDriver } from './dataset-driver.js';

/** Entries walked per dataset before the count stops (`truncated`). */
export const SNAPSHOT_WALK_ENTRIES = 200_000;

export async function snapshotUsage(datasets: DatasetDriver, env: string, snapName: string): Promise<SnapshotUsage> {
  const parts = [];
  for (const d of await datasets.snapshotDatasets(env, snapName)) {
    const usage = await measureTree(d.path, SNAPSHOT_WALK_ENTRIES);
    parts.push({ name: d.name, bytes: usage.bytes, truncated: usage.truncated });
  }
  return {
    name: snapName,
    bytes: parts.reduce((n, d) => n + d.bytes, 0),
    truncated: parts.some((d) => d.truncated),
    datasets: parts,
  };
}
