/**
 * What both dataset drivers share (tree-driver.ts), on each of them: the copy driver in a temp dir,
 * the btrfs driver on a real loop-mounted btrfs (a missing mkfs.btrfs fails). Names are checked,
 * listings are sorted and leave hidden staging and retired trees out, a failed clone leaves nothing
 * behind, and destroy counts datasets only and removes whatever the env dir holds.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBtrfs, type BtrfsMount } from '../../../test/helpers/btrfs.js';
import { BtrfsDatasetDriver } from './btrfs/btrfs-driver.js';
import { CopyDatasetDriver } from './copy/copy-driver.js';
import type { DatasetDriver } from './dataset-driver.js';

/** Drivers whose clone fails half-way (after writing part of its destination), as a full disk would. */
const ENOSPC = () => new Error('ENOSPC: no space left on device');
class FailingCopy extends CopyDatasetDriver {
  protected override async cloneTree(src: string, dest: string): Promise<void> {
    await super.cloneTree(src, dest);
    throw ENOSPC();
  }
}
class FailingBtrfs extends BtrfsDatasetDriver {
  protected override async cloneTree(src: string, dest: string, readOnly: boolean): Promise<void> {
    await super.cloneTree(src, dest, readOnly);
    throw ENOSPC();
  }
}

describe.each(['copy', 'btrfs'] as const)('the %s driver', (kind) => {
  let root: string;
  let d: DatasetDriver;
  let broken: DatasetDriver;
  let fs: BtrfsMount | null = null;
  let tmp: string | null = null;
  beforeAll(async () => {
    if (kind === 'btrfs') {
      fs = await mountBtrfs(256 * 1024 ** 2);
      root = path.join(fs.dir, 'datasets');
    } else {
      tmp = await mkdtemp(path.join(os.tmpdir(), 'denv-tree-'));
      root = path.join(tmp, 'datasets');
    }
    await mkdir(root, { recursive: true });
    d = kind === 'btrfs' ? new BtrfsDatasetDriver(root) : new CopyDatasetDriver(root);
    broken = kind === 'btrfs' ? new FailingBtrfs(root) : new FailingCopy(root);
  });
  afterAll(async () => {
    await fs?.unmount();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('refuses names that would leave its directory, saying which name', async () => {
    await expect(d.snapshot('env_n', '../x', ['db'])).rejects.toThrow(/invalid snapshot name/);
    expect(() => d.hasSnapshot('env_n', 'a/b')).toThrow(/invalid snapshot name "a\/b"/);
    await expect(d.fork('env_n', 's', '..', ['db'])).rejects.toThrow();
    expect(() => d.path('env_n', '.')).toThrow(/invalid dataset name/);
    await expect(d.listSnapshots('../..')).rejects.toThrow(/invalid env name/);
  });

  it('lists snapshots and their datasets sorted, without hidden staging trees or retired copies', async () => {
    await d.create('env_l', 'zeta');
    await d.create('env_l', 'alpha');
    for (const snap of ['ver_c', 'ver_a', 'ver_b', 'ver.old-notretired']) await d.snapshot('env_l', snap, ['zeta', 'alpha']);
    const snaps = path.join(root, 'env_l', 'snapshots');
    // What a crash can leave: a staging tree (hidden) and a replaced snapshot set aside (`<name>.old-<8 hex>`).
    await mkdir(path.join(snaps, '.snap-ver_d-0badf00d'));
    await mkdir(path.join(snaps, 'ver_a.old-0badf00d'));
    expect(await d.listSnapshots('env_l')).toEqual(['ver.old-notretired', 'ver_a', 'ver_b', 'ver_c']);
    await mkdir(path.join(snaps, 'ver_b', '.restore-alpha-0badf00d'));
    expect(await d.snapshotDatasets('env_l', 'ver_b')).toEqual([
      { name: 'alpha', path: path.join(snaps, 'ver_b', 'alpha') },
      { name: 'zeta', path: path.join(snaps, 'ver_b', 'zeta') },
    ]);
    expect(await d.snapshotDatasets('env_l', 'ver_none')).toEqual([]);
    expect(await d.snapshotDatasets('env_unknown', 'ver_a')).toEqual([]);
    expect(await d.removeSnapshot('env_unknown', 'ver_a')).toBe(false);
    await rm(path.join(snaps, 'ver_a.old-0badf00d'), { recursive: true });
    await d.destroy('env_l');
  });

  it('a clone that fails leaves no staging tree and the old data in place', async () => {
    const live = await d.create('env_f', 'db');
    await writeFile(path.join(live, 'rows'), 'v1');
    await d.snapshot('env_f', 's1', ['db']);
    await expect(broken.snapshot('env_f', 's2', ['db'])).rejects.toThrow(/ENOSPC/);
    await expect(broken.restore('env_f', 's1', ['db'])).rejects.toThrow(/ENOSPC/);
    await expect(broken.fork('env_f', 's1', 'env_f2', ['db'])).rejects.toThrow(/ENOSPC/);
    expect(await d.listSnapshots('env_f')).toEqual(['s1']);
    expect(await readdir(path.join(root, 'env_f', 'snapshots'))).toEqual(['s1']);
    expect(await readdir(path.join(root, 'env_f', 'live'))).toEqual(['db']);
    expect(await readdir(path.join(root, 'env_f2', 'live')).catch(() => [])).toEqual([]);
    expect(await readdir(live)).toEqual(['rows']);
    await d.destroy('env_f');
    await d.destroy('env_f2');
  });

  it('destroy counts datasets and snapshots, not hidden leftovers, and removes whatever else the env dir holds', async () => {
    await d.create('env_d', 'db');
    await d.snapshot('env_d', 's', ['db']);
    await mkdir(path.join(root, 'env_d', 'live', '.restore-db-0badf00d', 'sub'), { recursive: true });
    await writeFile(path.join(root, 'env_d', 'live', '.restore-db-0badf00d', 'sub', 'half'), 'x');
    await mkdir(path.join(root, 'env_d', 'snapshots', '.pruned-t-0badf00d'));
    await writeFile(path.join(root, 'env_d', 'notes.txt'), 'left by hand');
    expect(await d.destroy('env_d')).toEqual({ datasets: 1, snapshots: 1 });
    expect(await readdir(root)).not.toContain('env_d');
    expect(await d.destroy('env_d')).toEqual({ datasets: 0, snapshots: 0 });
  });
});
