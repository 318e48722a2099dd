/**
 * The command lines that turn a snapshot into one archive file and back (`env move`, DESIGN §8):
 * pure builders (STYLE 1), tested on their exact output. Paths come after `--`, so none can be
 * read as an option.
 *
 *   tar    a tar of the snapshot's dataset trees, owners kept as numbers (a service's data
 *          belongs to its user: PostgreSQL refuses a data dir it does not own), sparse files
 *          kept sparse; unpacked with the same owners and modes (the agent runs as root)
 *   btrfs  one `btrfs send` stream of the snapshot's read-only subvolumes; `btrfs receive`
 *          makes them again, each under its own name
 */

/** Archive `names` (directories inside `dir`) into `file`. */
export function tarCreate(file: string, dir: string, names: readonly string[]): string[] {
  return ['tar', '--create', '--file', file, '--directory', dir, '--numeric-owner', '--sparse', '--', ...names];
}

/** Unpack `file` into `dir` with the archive's owners and modes. */
export function tarExtract(file: string, dir: string): string[] {
  return ['tar', '--extract', '--file', file, '--directory', dir, '--numeric-owner', '--same-owner', '--same-permissions'];
}

/** One send stream of the read-only subvolumes `paths`, written to `file`. */
export function btrfsSend(file: string, paths: readonly string[]): string[] {
  return ['btrfs', '-q', 'send', '-f', file, '--', ...paths];
}

/** Make the subvolumes of send stream `file` inside `dir` (which must be on btrfs). */
export function btrfsReceive(file: string, dir: string): string[] {
  // -C: confined to `dir` (chroot), so no path in the stream reaches outside it.
  return ['btrfs', '-q', 'receive', '-C', '-f', file, '--', dir];
}
