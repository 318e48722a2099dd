/**
 * The `btrfs` dataset driver: every dataset is a subvolume, so snapshot, fork and restore are
 * copy-on-write snapshots — O(1) whatever the data size.
 *
 *   <root>/<env>/live/<name>                 writable subvolume: the data a service sees
 *   <root>/<env>/snapshots/<snap>/<name>     read-only snapshot subvolume
 *
 * The layout is the copy driver's, so the two are interchangeable above this interface.
 * Replacing a tree (a snapshot of an existing name, a restore, a fork over existing data) is
 * built beside the destination and swapped in, as in the copy driver, and the retired tree's
 * subvolumes are deleted with `btrfs subvolume delete` (a read-only snapshot cannot be emptied
 * with unlink). Subvolumes a service nests inside its own dataset are not supported.
 */
import { lstat, mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../../contracts/errors.js';
import { runOrThrow } from '../../../lib/exec.js';
import { assertSafeName } from '../../files.js';
import type { DatasetDriver } from '../dataset-driver.js';
import { exists, swapInto, tmpName } from '../staging.js';
import { subvolumeCreate, subvolumeDelete, subvolumeSnapshot } from './btrfs-argv.js';

/** The inode number of every subvolume's root directory (BTRFS_FIRST_FREE_OBJECTID). */
const SUBVOLUME_ROOT_INO = 256;
const BTRFS_TIMEOUT_MS = 60_000;

async function isSubvolume(p: string): Promise<boolean> {
  const info = await lstat(p).catch(() => null);
  return info !== null && info.isDirectory() && info.ino === SUBVOLUME_ROOT_INO;
}

async function countEntries(dir: string): Promise<number> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => !e.startsWith('.')).length;
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

export class BtrfsDatasetDriver implements DatasetDriver {
  readonly kind = 'btrfs' as const;

  /** `root`: the dataset root; it must be on a btrfs filesystem (see `openDatasetDriver`). */
  constructor(private readonly root: string) {}

  private envDir(env: string): string {
    assertSafeName('env', env);
    return path.join(this.root, env);
  }

  private snapshotDir(env: string, snapName: string): string {
    assertSafeName('snapshot', snapName);
    return path.join(this.envDir(env), 'snapshots', snapName);
  }

  path(env: string, name: string): string {
    assertSafeName('dataset', name);
    return path.join(this.envDir(env), 'live', name);
  }

  async create(env: string, name: string): Promise<string> {
    const dir = this.path(env, name);
    if (await exists(dir)) return dir;
    await mkdir(path.dirname(dir), { recursive: true });
    await btrfs(subvolumeCreate(dir));
    return dir;
  }

  hasSnapshot(env: string, snapName: string): Promise<boolean> {
    return exists(this.snapshotDir(env, snapName));
  }

  async snapshot(env: string, snapName: string, names: readonly string[]): Promise<string[]> {
    const dest = this.snapshotDir(env, snapName);
    const sources = await Promise.all(names.map((name) => this.create(env, name)));
    const staged = path.join(path.dirname(dest), tmpName(`snap-${snapName}`));
    await mkdir(staged, { recursive: true });
    try {
      for (const [i, name] of names.entries()) await btrfs(subvolumeSnapshot(sources[i]!, path.join(staged, name), true));
      await swapInto(staged, dest, removeTree);
    } catch (err) {
      await removeTree(staged);
      throw err;
    }
    return [...names];
  }

  async restore(env: string, snapName: string, names: readonly string[]): Promise<string[]> {
    const snap = this.snapshotDir(env, snapName);
    if (!(await exists(snap))) throw new DenvError('NOT_FOUND', `snapshot "${snapName}" of env ${env} does not exist on this host`);
    return this.writableFrom(snap, env, names);
  }

  async fork(fromEnv: string, snapName: string, toEnv: string, names: readonly string[]): Promise<string[]> {
    const snap = this.snapshotDir(fromEnv, snapName);
    if (!(await exists(snap))) throw new DenvError('NOT_FOUND', `snapshot "${snapName}" of env ${fromEnv} does not exist on this host`);
    return this.writableFrom(snap, toEnv, names);
  }

  async destroy(env: string): Promise<{ datasets: number; snapshots: number }> {
    const dir = this.envDir(env);
    const counts = { datasets: await countEntries(path.join(dir, 'live')), snapshots: await countEntries(path.join(dir, 'snapshots')) };
    await removeTree(dir);
    return counts;
  }

  /** Each dataset of `names` the snapshot holds becomes a writable snapshot of it at `env`'s live path. */
  private async writableFrom(snap: string, env: string, names: readonly string[]): Promise<string[]> {
    const made: string[] = [];
    for (const name of names) {
      const source = path.join(snap, name);
      if (!(await exists(source))) continue; // a volume added after the snapshot keeps its live data
      const dest = this.path(env, name);
      await mkdir(path.dirname(dest), { recursive: true });
      const staged = path.join(path.dirname(dest), tmpName(`restore-${name}`));
      try {
        await btrfs(subvolumeSnapshot(source, staged, false));
        await swapInto(staged, dest, removeTree);
      } catch (err) {
        await removeTree(staged);
        throw err;
      }
      made.push(name);
    }
    return made;
  }
}
