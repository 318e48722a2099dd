/**
 * The `btrfs` dataset driver: every dataset is a subvolume, so snapshot, fork and restore are
 * copy-on-write snapshots — O(1) whatever the data size.
 *
 *   <root>/<env>/live/<name>                 writable subvolume: the data a service sees
 *   <root>/<env>/snapshots/<snap>/<name>     read-only snapshot subvolume
 *
 * Layout and crash-safe replace are shared with the copy driver (tree-driver.ts); a retired
 * tree's subvolumes are deleted with `btrfs subvolume delete` (a read-only snapshot cannot be
 * emptied with unlink). Subvolumes a service nests inside its own dataset are not supported.
 */
import { lstat, mkdir, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runOrThrow } from '../../../lib/exec.js';
import { exists } from '../staging.js';
import { TreeDatasetDriver } from '../tree-driver.js';
import { btrfsReceive, btrfsSend } from '../archive-argv.js';
import { subvolumeCreate, subvolumeDelete, subvolumeSnapshot } from './btrfs-argv.js';

/** The inode number of every subvolume's root directory (BTRFS_FIRST_FREE_OBJECTID). */
const SUBVOLUME_ROOT_INO = 256;
const BTRFS_TIMEOUT_MS = 60_000;
/** send and receive carry the data itself: as long as a large dataset takes. */
const STREAM_TIMEOUT_MS = 60 * 60_000;

async function isSubvolume(p: string): Promise<boolean> {
  const info = await lstat(p).catch(() => null);
  return info !== null && info.isDirectory() && info.ino === SUBVOLUME_ROOT_INO;
}

function btrfs(argv: string[]): Promise<unknown> {
  return runOrThrow(argv, { timeoutMs: BTRFS_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
}

/**
 * Delete the tree at `p`: subvolumes with `btrfs subvolume delete` (all in one run), plain
 * directories and files by unlinking. Missing `p` is fine (idempotent).
 */
export async function removeTree(p: string): Promise<void> {
  const subvolumes: string[] = [];
  const dirs: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    if (await isSubvolume(dir)) {
      subvolumes.push(dir);
      return;
    }
    const info = await lstat(dir).catch(() => null);
    if (!info) return;
    if (!info.isDirectory()) {
      await rm(dir, { force: true });
      return;
    }
    for (const name of await readdir(dir)) await walk(path.join(dir, name));
    dirs.push(dir);
  };
  await walk(p);
  if (subvolumes.length > 0) await btrfs(subvolumeDelete(subvolumes));
  for (const dir of dirs) await rmdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

export class BtrfsDatasetDriver extends TreeDatasetDriver {
  readonly kind = 'btrfs' as const;

  /** `root`: the dataset root; it must be on a btrfs filesystem (see `openDatasetDriver`). */
  constructor(root: string) {
    super(root);
  }

  async create(env: string, name: string): Promise<string> {
    const dir = this.path(env, name);
    if (await exists(dir)) return dir;
    await mkdir(path.dirname(dir), { recursive: true });
    await btrfs(subvolumeCreate(dir));
    return dir;
  }

  protected async cloneTree(src: string, dest: string, readOnly: boolean): Promise<void> {
    await btrfs(subvolumeSnapshot(src, dest, readOnly));
  }

  protected removeTree(p: string): Promise<void> {
    return removeTree(p);
  }

  protected override async sendTrees(paths: readonly string[], file: string): Promise<void> {
    // No subvolume to send: an empty file, which receiveTrees reads as no dataset.
    if (paths.length === 0) await writeFile(file, '');
    else await runOrThrow(btrfsSend(file, paths), { timeoutMs: STREAM_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  }

  protected override async receiveTrees(file: string, dir: string): Promise<void> {
    if ((await stat(file)).size === 0) return;
    await runOrThrow(btrfsReceive(file, dir), { timeoutMs: STREAM_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  }
}
