/** Listing and removing snapshots (snapshot retention), on both drivers: the copy driver in a
 *  temp dir, the btrfs driver on a real loop-mounted btrfs (a missing mkfs.btrfs fails). */
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBtrfs, subvolumes, type BtrfsMount } from '../../../test/helpers/btrfs.js';
import { CopyDatasetDriver } from './copy/copy-driver.js';
import type { DatasetDriver } from './dataset-driver.js';
import { openDatasetDriver } from './open-driver.js';
import { snapshotUsage } from './snapshot-usage.js';

describe.each(['copy', 'btrfs'] as const)('snapshot removal on the %s driver', (kind) => {
  let root: string;
  let d: DatasetDriver;
  let fs: BtrfsMount | null = null;
  let tmp: string | null = null;
  beforeAll(async () => {
    if (kind === 'btrfs') {
      fs = await mountBtrfs(256 * 1024 ** 2);
      root = path.join(fs.dir, 'datasets');
      d = await openDatasetDriver(root);
    } else {
      tmp = await mkdtemp(path.join(os.tmpdir(), 'denv-prune-'));
      root = path.join(tmp, 'datasets');
      d = new CopyDatasetDriver(root);
    }
    expect(d.kind).toBe(kind);
  });
  afterAll(async () => {
    await fs?.unmount();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('lists snapshots with their datasets and sizes, removes one whole, and is idempotent', async () => {
    const live = await d.create('env_p', 'db');
    await d.create('env_p', 'files');
    await mkdir(path.join(live, 'sub'));
    await writeFile(path.join(live, 'sub', 'rows'), 'x'.repeat(3000));
    await writeFile(path.join(live, 'head'), '12345');
    await d.snapshot('env_p', 'ver_a', ['db', 'files']);
    await writeFile(path.join(live, 'more'), 'y'.repeat(1000));
    await d.snapshot('env_p', 'ver_b', ['db']);

    expect(await d.listSnapshots('env_p')).toEqual(['ver_a', 'ver_b']);
    expect(await d.listSnapshots('env_unknown')).toEqual([]);
    expect((await d.snapshotDatasets('env_p', 'ver_a')).map((x) => x.name)).toEqual(['db', 'files']);
    const a = await snapshotUsage(d, 'env_p', 'ver_a');
    expect(a).toEqual({ name: 'ver_a', bytes: 3005, truncated: false, datasets: [{ name: 'db', bytes: 3005, truncated: false }, { name: 'files', bytes: 0, truncated: false }] });
    expect((await snapshotUsage(d, 'env_p', 'ver_b')).bytes).toBe(4005);

    expect(await d.removeSnapshot('env_p', 'ver_a')).toBe(true);
    expect(await d.removeSnapshot('env_p', 'ver_a')).toBe(false);
    expect(await d.listSnapshots('env_p')).toEqual(['ver_b']);
    // Nothing left behind: no hidden retired tree, and (btrfs) no subvolume of the removed snapshot.
    expect(await readdir(path.join(root, 'env_p', 'snapshots'))).toEqual(['ver_b']);
    if (fs) expect((await subvolumes(fs.dir)).filter((s) => s.includes('ver_a'))).toEqual([]);
    // A removal interrupted after the rename (a crash) is finished by the next removal of that name.
    await d.snapshot('env_p', 'ver_c', ['db']);
    await rename(path.join(root, 'env_p', 'snapshots', 'ver_c'), path.join(root, 'env_p', 'snapshots', '.pruned-ver_c-0badf00d'));
    expect(await d.listSnapshots('env_p')).toEqual(['ver_b']);
    expect(await d.removeSnapshot('env_p', 'ver_c')).toBe(false);
    expect(await readdir(path.join(root, 'env_p', 'snapshots'))).toEqual(['ver_b']);
    if (fs) expect((await subvolumes(fs.dir)).filter((s) => s.includes('ver_c'))).toEqual([]);
    // The live data and the other snapshot are untouched.
    expect(await d.hasSnapshot('env_p', 'ver_b')).toBe(true);
    expect((await readdir(live)).sort()).toEqual(['head', 'more', 'sub']);
    await d.destroy('env_p');
  });
});
