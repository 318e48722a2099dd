/**
 * The `btrfs` command lines the btrfs driver runs: pure builders (STYLE 1), tested on their exact
 * output. Paths are always separate argv elements and preceded by `--`, so a path can never be
 * read as an option.
 */

/** A new, empty, writable subvolume at `path`. */
export function subvolumeCreate(path: string): string[] {
  return ['btrfs', 'subvolume', 'create', '--', path];
}

/** A copy-on-write snapshot of subvolume `source` at `dest`: O(1) whatever the data size.
 *  `readOnly` for snapshots kept as versions; writable for forks and restores. */
export function subvolumeSnapshot(source: string, dest: string, readOnly: boolean): string[] {
  return ['btrfs', 'subvolume', 'snapshot', ...(readOnly ? ['-r'] : []), '--', source, dest];
}

/** Delete subvolumes (read-only ones included), in one run. */
export function subvolumeDelete(paths: readonly string[]): string[] {
  return ['btrfs', 'subvolume', 'delete', '--', ...paths];
}

/** Used to check that btrfs-progs is installed. */
export function btrfsVersion(): string[] {
  return ['btrfs', '--version'];
}
