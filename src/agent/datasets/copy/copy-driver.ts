/**
 * The `copy` dataset driver: plain directories, works on any filesystem.
 *
 *   <dataDir>/datasets/<env>/live/<name>                 the data a service sees
 *   <dataDir>/datasets/<env>/snapshots/<snap>/<name>     a named snapshot
 *
 * Copies keep symlinks as symlinks with their target text unchanged (never followed, so a link
 * pointing outside the dataset copies the link, not what it points to), keep modes and
 * timestamps, and skip sockets and FIFOs (they hold no data and cannot be copied). A snapshot
 * or a restore is built beside its destination and renamed into place, so a crash leaves the
 * old copy or the new one, not a mix.
 */
import { randomBytes } from 'node:crypto';
import { cp, lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../../contracts/errors.js';
import { assertSafeName } from '../../files.js';
import type { DatasetDriver } from '../dataset-driver.js';

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

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
      return !info.isSocket() && !info.isFIFO();
    },
  });
}

/** Put `staged` at `dest`, replacing what was there; `staged` and `dest` share a parent filesystem. */
async function swapInto(staged: string, dest: string): Promise<void> {
  const old = `${dest}.old-${randomBytes(4).toString('hex')}`;
  const hadOld = await rename(dest, old).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  await rename(staged, dest);
  if (hadOld) await rm(old, { recursive: true, force: true });
}

function tmpName(prefix: string): string {
  return `.${prefix}-${randomBytes(4).toString('hex')}`;
}

async function countEntries(dir: string): Promise<number> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => !e.startsWith('.')).length;
}

export class CopyDatasetDriver implements DatasetDriver {
  readonly kind = 'copy' as const;
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'datasets');
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
