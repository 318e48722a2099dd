/** The btrfs driver on a real loop-mounted btrfs (created here; a missing mkfs.btrfs fails). */
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { diskUsage, mountBtrfs, subvolumeShow, subvolumes, type BtrfsMount } from '../../../../test/helpers/btrfs.js';
import { runOrThrow } from '../../../lib/exec.js';
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

  it('on btrfs without the btrfs command (btrfs-progs), falls back to the copy driver and says why', async () => {
    const emptyBin = await mkdtemp(path.join(os.tmpdir(), 'denv-nobin-'));
    const saved = process.env.PATH;
    const lines: string[] = [];
    process.env.PATH = emptyBin;
    try {
      const root = path.join(fs.dir, 'no-progs');
      expect(await openDatasetDriver(root, (l) => lines.push(l))).toBeInstanceOf(CopyDatasetDriver);
      expect(lines).toEqual([`datasets: ${root} is on btrfs but the btrfs command (btrfs-progs) is missing; using the copy driver`]);
    } finally {
      process.env.PATH = saved;
      await rm(emptyBin, { recursive: true, force: true });
    }
    // With the command back, the same root gets the btrfs driver, and nothing is logged.
    expect(await openDatasetDriver(path.join(fs.dir, 'no-progs'), (l) => lines.push(l))).toBeInstanceOf(BtrfsDatasetDriver);
    expect(lines).toHaveLength(1);
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

  it('forks 64 MiB copy-on-write: the fork is a snapshot of the version snapshot, sharing every extent (nothing exclusive)', async () => {
    const live = await d.create('env_big', 'db');
    await writeFile(path.join(live, 'blob'), randomBytes(64 * 1024 ** 2));
    await d.snapshot('env_big', 's', ['db']);
    await d.fork('env_big', 's', 'env_big_fork', ['db']);
    const snap = path.join(fs.dir, 'datasets', 'env_big', 'snapshots', 's', 'db');
    const fork = d.path('env_big_fork', 'db');
    // A subvolume snapshot names its origin; a subvolume filled by copying has no parent.
    expect((await subvolumeShow(fork))['Parent UUID']).toBe((await subvolumeShow(snap)).UUID);
    // Its data is the snapshot's extents: 64 MiB shared, none exclusive (a byte copy would hold 64 MiB of its own).
    await runOrThrow(['sync', '-f', fork]);
    expect(await diskUsage(fork)).toEqual({ total: 64 * 1024 ** 2, exclusive: 0, shared: 64 * 1024 ** 2 });
    // Writing into the fork makes only what it wrote its own.
    await writeFile(path.join(fork, 'more'), randomBytes(1024 ** 2));
    await runOrThrow(['sync', '-f', fork]);
    expect(await diskUsage(fork)).toEqual({ total: 65 * 1024 ** 2, exclusive: 1024 ** 2, shared: 64 * 1024 ** 2 });
    for (const env of ['env_big', 'env_big_fork']) await d.destroy(env);
  });
});
