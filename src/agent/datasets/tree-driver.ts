/**
 * What the two dataset drivers share: the on-disk layout and the crash-safe replace.
 *
 *   <root>/<env>/live/<name>                 the data a service sees
 *   <root>/<env>/snapshots/<snap>/<name>     a named snapshot
 *
 * A snapshot, a restore or a fork is built beside its destination and swapped in, so a crash
 * leaves the old tree or the new one, never a mix. A driver says only how to make a dataset, how
 * to clone a tree (a copy, or a btrfs snapshot) and how to delete one.
 */
import { lstat, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { ArchiveFormat } from '../../contracts/protocol.js';
import { runOrThrow } from '../../lib/exec.js';
import { assertSafeName } from '../files.js';
import { tarCreate, tarExtract } from './archive-argv.js';
import type { DatasetDriver } from './dataset-driver.js';
import { exists, swapInto, tmpName } from './staging.js';

/** An archive of a large dataset takes a while; a stuck `tar` or `btrfs` does not hold the env forever. */
const ARCHIVE_TIMEOUT_MS = 60 * 60_000;

/** A tree `swapInto` moved aside (`<dest>.old-<hex>`) and had not yet deleted when a crash hit. */
const RETIRED = /\.old-[0-9a-f]{8}$/;

async function countEntries(dir: string): Promise<number> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => !e.startsWith('.')).length;
}

/**
 * An archive comes from another host: unpacked as root, it could plant a device node (a raw disk
 * the env's user may then open) or a setuid program. Data holds neither; an archive that does is
 * refused. Walks without following links.
 */
async function assertPlainData(dir: string, shown: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const p = path.join(dir, name);
    const info = await lstat(p);
    const where = `${shown}/${name}`;
    if (info.isBlockDevice() || info.isCharacterDevice()) throw new DenvError('BAD_REQUEST', `the archive holds a device node (${where}): refused`);
    if (!info.isSymbolicLink() && (info.mode & 0o6000) !== 0) throw new DenvError('BAD_REQUEST', `the archive holds a setuid or setgid entry (${where}): refused`);
    if (info.isDirectory()) await assertPlainData(p, where);
  }
}

export abstract class TreeDatasetDriver implements DatasetDriver {
  abstract readonly kind: DatasetDriver['kind'];

  /** `root`: the agent's dataset root (`--datasets`, default `<data-dir>/datasets`). */
  constructor(protected readonly root: string) {}

  /** Make the live dataset `name` of `env` if it does not exist; its path. */
  abstract create(env: string, name: string): Promise<string>;
  /** Clone the tree `src` to the new path `dest`: read-only for a snapshot, writable for a restore or fork. */
  protected abstract cloneTree(src: string, dest: string, readOnly: boolean): Promise<void>;
  /** Delete a tree this driver made (idempotent). */
  protected abstract removeTree(p: string): Promise<void>;

  /** Write the trees `paths` as one `btrfs send` stream to `file` (only the btrfs driver can). */
  protected sendTrees(_paths: readonly string[], _file: string): Promise<void> {
    return Promise.reject(new DenvError('BAD_REQUEST', 'this host keeps datasets in plain directories: it can archive them as tar, not as a btrfs stream'));
  }

  /** Make the subvolumes of `btrfs send` stream `file` inside `dir` (only the btrfs driver can). */
  protected receiveTrees(_file: string, _dir: string): Promise<void> {
    return Promise.reject(new DenvError('BAD_REQUEST', 'this host keeps datasets in plain directories: it can take a tar archive, not a btrfs stream'));
  }

  protected envDir(env: string): string {
    assertSafeName('env', env);
    return path.join(this.root, env);
  }

  protected snapshotDir(env: string, snapName: string): string {
    assertSafeName('snapshot', snapName);
    return path.join(this.envDir(env), 'snapshots', snapName);
  }

  path(env: string, name: string): string {
    assertSafeName('dataset', name);
    return path.join(this.envDir(env), 'live', name);
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
      for (const [i, name] of names.entries()) await this.cloneTree(sources[i]!, path.join(staged, name), true);
      await swapInto(staged, dest, (p) => this.removeTree(p));
    } catch (err) {
      await this.removeTree(staged);
      throw err;
    }
    return [...names];
  }

  async restore(env: string, snapName: string, names: readonly string[]): Promise<string[]> {
    return this.writableFrom(await this.existingSnapshot(env, snapName), env, names);
  }

  async fork(fromEnv: string, snapName: string, toEnv: string, names: readonly string[]): Promise<string[]> {
    return this.writableFrom(await this.existingSnapshot(fromEnv, snapName), toEnv, names);
  }

  async destroy(env: string): Promise<{ datasets: number; snapshots: number }> {
    const dir = this.envDir(env);
    const counts = { datasets: await countEntries(path.join(dir, 'live')), snapshots: await countEntries(path.join(dir, 'snapshots')) };
    await this.removeTree(dir);
    return counts;
  }

  async listSnapshots(env: string): Promise<string[]> {
    const entries = await readdir(path.join(this.envDir(env), 'snapshots')).catch(() => [] as string[]);
    return entries.filter((e) => !e.startsWith('.') && !RETIRED.test(e)).sort();
  }

  async snapshotDatasets(env: string, snapName: string): Promise<{ name: string; path: string }[]> {
    const dir = this.snapshotDir(env, snapName);
    const entries = await readdir(dir).catch(() => [] as string[]);
    return entries.filter((e) => !e.startsWith('.')).sort().map((name) => ({ name, path: path.join(dir, name) }));
  }

  async removeSnapshot(env: string, snapName: string): Promise<boolean> {
    const dir = this.snapshotDir(env, snapName);
    const parent = path.dirname(dir);
    const moved = await rename(dir, path.join(parent, tmpName(`pruned-${snapName}`))).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw err;
      },
    );
    // The tree just set aside, and any an interrupted earlier removal of this snapshot left behind.
    const retired = (await readdir(parent).catch(() => [] as string[])).filter((e) => e.startsWith(`.pruned-${snapName}-`));
    for (const e of retired) await this.removeTree(path.join(parent, e));
    return moved;
  }

  async exportSnapshot(env: string, snapName: string, names: readonly string[], format: ArchiveFormat, file: string): Promise<string[]> {
    const snap = await this.existingSnapshot(env, snapName);
    const held: string[] = [];
    for (const name of names) if (await exists(path.join(snap, name))) held.push(name);
    if (format === 'btrfs') await this.sendTrees(held.map((name) => path.join(snap, name)), file);
    // tar refuses to write an archive of nothing; an empty file is the archive of no dataset.
    else if (held.length === 0) await writeFile(file, '');
    else await runOrThrow(tarCreate(file, snap, held), { timeoutMs: ARCHIVE_TIMEOUT_MS });
    return held;
  }

  async importSnapshot(env: string, snapName: string, format: ArchiveFormat, file: string): Promise<string[]> {
    const dest = this.snapshotDir(env, snapName);
    await mkdir(path.dirname(dest), { recursive: true });
    const staged = path.join(path.dirname(dest), tmpName(`import-${snapName}`));
    await mkdir(staged);
    try {
      if (format === 'btrfs') await this.receiveTrees(file, staged);
      else if ((await stat(file)).size > 0) await runOrThrow(tarExtract(file, staged), { timeoutMs: ARCHIVE_TIMEOUT_MS });
      // Only datasets: an archive holding anything but directories named as datasets is refused.
      for (const entry of await readdir(staged)) {
        assertSafeName('dataset', entry);
        // lstat: a link named like a dataset would make the live dataset point anywhere on this host.
        if (!(await lstat(path.join(staged, entry))).isDirectory()) throw new DenvError('BAD_REQUEST', `the archive holds ${entry}, which is not a dataset directory`);
        await assertPlainData(path.join(staged, entry), entry);
      }
      await swapInto(staged, dest, (p) => this.removeTree(p));
    } catch (err) {
      await this.removeTree(staged);
      throw err;
    }
    return (await this.snapshotDatasets(env, snapName)).map((d) => d.name);
  }

  private async existingSnapshot(env: string, snapName: string): Promise<string> {
    const snap = this.snapshotDir(env, snapName);
    if (!(await exists(snap))) throw new DenvError('NOT_FOUND', `snapshot "${snapName}" of env ${env} does not exist on this host`);
    return snap;
  }

  /** Each dataset of `names` the snapshot holds replaces `env`'s live one by a writable clone. */
  private async writableFrom(snap: string, env: string, names: readonly string[]): Promise<string[]> {
    const made: string[] = [];
    for (const name of names) {
      const source = path.join(snap, name);
      if (!(await exists(source))) continue; // a volume added after the snapshot keeps its live data
      const dest = this.path(env, name);
      await mkdir(path.dirname(dest), { recursive: true });
      const staged = path.join(path.dirname(dest), tmpName(`restore-${name}`));
      try {
        await this.cloneTree(source, staged, false);
        await swapInto(staged, dest, (p) => this.removeTree(p));
      } catch (err) {
        await this.removeTree(staged);
        throw err;
      }
      made.push(name);
    }
    return made;
  }
}
