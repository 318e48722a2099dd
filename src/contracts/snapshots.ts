/**
 * `GET /v1/envs/{env}/snapshots` (and `denv env snapshots`): an env's snapshots, whether snapshot
 * retention keeps each and why, and what each holds on the host (issue 9).
 */

export interface EnvSnapshotDataset {
  readonly name: string;
  readonly bytes: number;
  /** The count stopped at its bound: `bytes` is a lower bound. */
  readonly truncated: boolean;
}

export interface EnvSnapshot {
  /** The snapshot's name on the host (a version id). */
  readonly snapshot: string;
  /** The version it belongs to (null: a snapshot on the host no version of this env records). */
  readonly version: string | null;
  readonly number: number | null;
  readonly healthy: boolean | null;
  /** When its version was created. */
  readonly created_at: string | null;
  /** Whether retention keeps it, and why: `current`, `recent healthy (1 of 3)`, `needed by fork <name> (<env>)`, `needed by rollback <deployment>`. */
  readonly kept: boolean;
  readonly reasons: readonly string[];
  /** When retention marked it pruned (it then is being, or has been, deleted on the host). */
  readonly pruned_at: string | null;
  /** Whether the host holds it (null: the host was not asked or did not answer). */
  readonly on_host: boolean | null;
  /** Bytes its datasets hold on the host (null when unknown). On btrfs, data shared copy-on-write is counted in full. */
  readonly bytes: number | null;
  readonly datasets: readonly EnvSnapshotDataset[] | null;
}

export interface EnvSnapshotList {
  readonly items: readonly EnvSnapshot[];
  readonly next: null;
  /** The retention setting in force: healthy versions kept besides the current one. */
  readonly keep_recent: number;
  /** Sum of `bytes` over the snapshots on the host (null when the host did not answer). */
  readonly total_bytes: number | null;
  /** Why sizes are missing (the host is not connected, did not answer in time…), else null. */
  readonly error: string | null;
}
