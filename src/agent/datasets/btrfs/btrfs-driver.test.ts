/** The btrfs driver on a real loop-mounted btrfs (created here; a missing mkfs.btrfs fails). */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountBtrfs, subvolumes, type BtrfsMount } from '../../../../test/helpers/btrfs.js';
import { CopyDatasetDriver } from '../copy/copy-driver.js';
import { openDatasetDriver } from '../open-driver.js';
import { BtrfsDatasetDriver } from './btrfs-driver.js';

let fs: BtrfsMount;
let d: BtrfsDatasetDriver;
beforeAll(async () => {
  fs = await mountBtrfs(512 * 1024 ** 2);
  const opened = await openDatasetDriver(path.join(fs.dir, 'datasets'));
  expect(opened).toBeInstanceOf(BtrfsDatasetDriver);
  d = opened as BtrfsDatasetDriver;
});
afterAll(async () => {
  await fs?.unmount();
});

describe('BtrfsDatasetDriver', () => {
  it('is picked on btrfs only; elsewhere the copy driver is', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'denv-notbtrfs-'));
    try {
      expect(await openDatasetDriver(dir)).toBeInstanceOf(CopyDatasetDriver);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps datasets and snapshots as subvolumes; forks and restores are writable snapshots', async () => {
    const live = await d.create('env_a', 'db');
    expect((await stat(live)).ino).toBe(256);
    await writeFile(path.join(live, 'rows'), 'v1');
    expect(await d.snapshot('env_a', 'ver_1', ['db'])).toEqual(['db']);
    await writeFile(path.join(live, 'rows'), 'v2');
    await expect(writeFile(path.join(fs.dir, 'datasets', 'env_a', 'snapshots', 'ver_1', 'db', 'x'), 'no')).rejects.toThrow(/read-only/);

    expect(await d.fork('env_a', 'ver_1', 'env_b', ['db', 'absent'])).toEqual(['db']);
    const forked = d.path('env_b', 'db');
    expect(await readFile(path.join(forked, 'rows'), 'utf8')).toBe('v1');
    await writeFile(path.join(forked, 'rows'), 'fork');
    expect(await readFile(path.join(live, 'rows'), 'utf8')).toBe('v2');

    expect(await d.restore('env_a', 'ver_1', ['db'])).toEqual(['db']);
    expect(await readFile(path.join(live, 'rows'), 'utf8')).toBe('v1');
    expect(await readFile(path.join(forked, 'rows'), 'utf8')).toBe('fork');
    // Replacing a snapshot of the same name leaves no retired tree behind.
    await d.snapshot('env_a', 'ver_1', ['db']);
    expect((await readdir(path.join(fs.dir, 'datasets', 'env_a', 'snapshots'))).sort()).toEqual(['ver_1']);
    await expect(d.restore('env_a', 'nope', ['db'])).rejects.toMatchObject({ code: 'NOT_FOUND' });

    expect(await d.destroy('env_a')).toEqual({ datasets: 1, snapshots: 1 });
    expect(await d.destroy('env_b')).toEqual({ datasets: 1, snapshots: 0 });
    expect(await d.destroy('env_b')).toEqual({ datasets: 0, snapshots: 0 });
    expect(await readdir(path.join(fs.dir, 'datasets'))).toEqual([]);
    expect(await subvolumes(fs.dir)).toEqual([]);
  });

  it('forks 64 MiB in the same time as an empty dataset (copy-on-write)', async () => {
    const live = await d.create('env_big', 'db');
    await writeFile(path.join(live, 'blob'), Buffer.alloc(64 * 1024 ** 2, 7));
    await d.create('env_small', 'db');
    await d.snapshot('env_big', 's', ['db']);
    await d.snapshot('env_small', 's', ['db']);
    const time = async (from: string, to: string) => {
      const t0 = performance.now();
      await d.fork(from, 's', to, ['db']);
      return performance.now() - t0;
    };
    const big = await time('env_big', 'env_big_fork');
    const small = await time('env_small', 'env_small_fork');
    expect(big).toBeLessThan(500);
    expect(big).toBeLessThan(small * 5 + 50);
    for (const env of ['env_big', 'env_small', 'env_big_fork', 'env_small_fork']) await d.destroy(env);
  });
});
