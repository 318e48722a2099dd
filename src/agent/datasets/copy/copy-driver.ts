/**
 * The `copy` dataset driver: plain directories, works on any filesystem.
 *
 *   <root>/<env>/live/<name>                 the data a service sees
 *   <root>/<env>/snapshots/<snap>/<name>     a named snapshot
 *
 * `<root>` is the agent's dataset root (`--datasets`, default `<data-dir>/datasets`).
 *
 * Copies keep symlinks as symlinks with their target text unchanged (never followed, so a link
 * pointing outside the dataset copies the link, not what it points to), keep modes and
 * timestamps, and skip sockets, FIFOs and device nodes (they hold no data; reading a device could
 * never end). A snapshot or a restore is built beside its destination and renamed into place,
 * so a crash leaves the old copy or the new one, not a mix.
 */
import { cp, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../../contracts/errors.js';
import { assertSafeName } from '../../files.js';
import type { DatasetDriver } from '../dataset-driver.js';
import { exists, swapInto, tmpName } from '../staging.js';

async function copyTree(src: string, dest: string): Promise<void> {
  await cp(src, dest, {
    recursive: true,
    dereference: false,
    verbatimSymlinks: true,
    preserveTimestamps: true,
    errorOnExist: true,
    force: false,
    filter: async (from) => {
      const info = await lstat(from);
      // Device nodes would be read as data (a planted /dev/zero never ends): never copied.
      return !info.isSocket() && !info.isFIFO() && !info.isCharacterDevice() && !info.isBlockDevice();
    },
  });
}

async function countEntries(dir: string): Promise<number> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => !e.startsWith('.')).length;
}

export class CopyDatasetDriver implements DatasetDriver {
  readonly kind = 'copy' as const;
  private readonly root: string;

  /** `root`: the dataset root directory (created on first use). */
  constructor(root: string) {
    this.root = root;
  }

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
    await mkdir(dir, { recursive: true });
    return dir;
  }

  hasSnapshot(env: string, snapName: string): Promise<boolean> {
    return exists(this.snapshotDir(env, snapName));
  }

  async snapshot(env: string, snapName: string, names: readonly string[]): Promise<string[]> {
    const dest = this.snapshotDir(env, snapName);
    const staged = path.join(path.dirname(dest), tmpName(`snap-${snapName}`));
    await mkdir(staged, { recursive: true });
    try {
      for (const name of names) await copyTree(await this.create(env, name), path.join(staged, name));
      await swapInto(staged, dest);
    } catch (err) {
      await rm(staged, { recursive: true, force: true });
      throw err;
    }
    return [...names];
  }

  async restore(env: string, snapName: string, names: readonly string[]): Promise<string[]> {
    const snap = this.snapshotDir(env, snapName);
    if (!(await exists(snap))) throw new DenvError('NOT_FOUND', `snapshot "${snapName}" of env ${env} does not exist on this host`);
    return this.copyFromSnapshot(snap, env, names);
  }

  async fork(fromEnv: string, snapName: string, toEnv: string, names: readonly string[]): Promise<string[]> {
    const snap = this.snapshotDir(fromEnv, snapName);
    if (!(await exists(snap))) throw new DenvError('NOT_FOUND', `snapshot "${snapName}" of env ${fromEnv} does not exist on this host`);
    return this.copyFromSnapshot(snap, toEnv, names);
  }

  async destroy(env: string): Promise<{ datasets: number; snapshots: number }> {
    const dir = this.envDir(env);
    const counts = { datasets: await countEntries(path.join(dir, 'live')), snapshots: await countEntries(path.join(dir, 'snapshots')) };
    await rm(dir, { recursive: true, force: true });
    return counts;
  }

  private async copyFromSnapshot(snap: string, env: string, names: readonly string[]): Promise<string[]> {
    const copied: string[] = [];
    for (const name of names) {
      const source = path.join(snap, name);
      if (!(await exists(source))) continue; // a volume added after the snapshot keeps its live data
      const dest = this.path(env, name);
      await mkdir(path.dirname(dest), { recursive: true });
      const staged = path.join(path.dirname(dest), tmpName(`restore-${name}`));
      try {
        await copyTree(source, staged);
        await swapInto(staged, dest);
      } catch (err) {
        await rm(staged, { recursive: true, force: true });
        throw err;
      }
      copied.push(name);
    }
    return copied;
  }
}
