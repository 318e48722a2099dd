/**
 * Datasets are an env's Compose named volumes (DESIGN §8). A driver keeps each env's live data
 * and its named snapshots; `copy` works anywhere, `btrfs` (later) makes snapshot and fork O(1).
 *
 * All operations are idempotent where that makes sense (create on an existing dataset, destroy
 * of an unknown env) because commands are delivered at least once.
 */
import type { ArchiveFormat } from '../../contracts/protocol.js';

export interface DatasetDriver {
  readonly kind: 'copy' | 'btrfs';
  /** Create the live dataset if missing; returns its path. */
  create(env: string, name: string): Promise<string>;
  /** Where the live dataset lives (whether or not it exists yet). */
  path(env: string, name: string): string;
  /** Whether snapshot `snapName` of `env` exists. */
  hasSnapshot(env: string, snapName: string): Promise<boolean>;
  /** Copy each live dataset in `names` into snapshot `snapName` (replacing a snapshot of that name); returns the names snapshotted. */
  snapshot(env: string, snapName: string, names: readonly string[]): Promise<string[]>;
  /** Replace each live dataset in `names` that the snapshot holds by its snapshot copy; returns the names restored. */
  restore(env: string, snapName: string, names: readonly string[]): Promise<string[]>;
  /** Make `toEnv`'s live datasets copies of `fromEnv`'s snapshot `snapName`; returns the names forked. */
  fork(fromEnv: string, snapName: string, toEnv: string, names: readonly string[]): Promise<string[]>;
  /** Delete the env's live datasets and snapshots; returns how many of each were removed. */
  destroy(env: string): Promise<{ datasets: number; snapshots: number }>;
  /** The names of the env's snapshots on this host (none when the env is unknown). */
  listSnapshots(env: string): Promise<string[]>;
  /** Each dataset snapshot `snapName` holds, with its path (empty when the snapshot does not exist). */
  snapshotDatasets(env: string, snapName: string): Promise<{ name: string; path: string }[]>;
  /** Delete snapshot `snapName` of `env` (copy: rm; btrfs: `btrfs subvolume delete`); false when it
   *  did not exist. Crash-safe: it is first renamed to a hidden name, so it is whole or gone; what
   *  an interrupted removal left under that hidden name goes with the next removal of `snapName`. */
  removeSnapshot(env: string, snapName: string): Promise<boolean>;
  /** Write the datasets of `names` that snapshot `snapName` holds to `file` as one archive
   *  (archive-argv.ts); returns the names written. `btrfs` only from the btrfs driver. */
  exportSnapshot(env: string, snapName: string, names: readonly string[], format: ArchiveFormat, file: string): Promise<string[]>;
  /** Unpack archive `file` (an `exportSnapshot` of another host) as snapshot `snapName` of `env`,
   *  replacing one of that name, crash-safe like `snapshot`; returns the dataset names it held. */
  importSnapshot(env: string, snapName: string, format: ArchiveFormat, file: string): Promise<string[]>;
}
