import { chmod, lchown, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runOrThrow } from '../../../lib/exec.js';
import { CopyDatasetDriver } from './copy-driver.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function driver(): Promise<{ dir: string; d: CopyDatasetDriver }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'denv-copy-'));
  dirs.push(dir);
  return { dir, d: new CopyDatasetDriver(path.join(dir, 'datasets')) };
}

describe('CopyDatasetDriver', () => {
  it('snapshots and restores live data, keeping symlinks as symlinks', async () => {
    const { dir, d } = await driver();
    const live = await d.create('env_a', 'db');
    expect(live).toBe(path.join(dir, 'datasets', 'env_a', 'live', 'db'));
    await mkdir(path.join(live, 'sub'));
    await writeFile(path.join(live, 'sub', 'rows.txt'), 'v1');
    await symlink('sub/rows.txt', path.join(live, 'link'));
    await symlink('/etc/hostname', path.join(live, 'outside'));

    expect(await d.snapshot('env_a', 'snap1', ['db', 'cache'])).toEqual(['db', 'cache']);
    expect(await d.hasSnapshot('env_a', 'snap1')).toBe(true);
    const snapDb = path.join(dir, 'datasets', 'env_a', 'snapshots', 'snap1', 'db');
    expect((await lstat(path.join(snapDb, 'link'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(snapDb, 'link'))).toBe('sub/rows.txt');
    expect(await readlink(path.join(snapDb, 'outside'))).toBe('/etc/hostname');

    await writeFile(path.join(live, 'sub', 'rows.txt'), 'v2');
    await writeFile(path.join(live, 'new.txt'), 'later');
    expect(await d.restore('env_a', 'snap1', ['db'])).toEqual(['db']);
    expect(await readFile(path.join(live, 'sub', 'rows.txt'), 'utf8')).toBe('v1');
    expect(await readFile(path.join(live, 'link'), 'utf8')).toBe('v1');
    expect(await readdir(live)).not.toContain('new.txt');
    expect((await readdir(path.dirname(live))).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('replaces a snapshot of the same name, refuses an unknown one, forks and destroys', async () => {
    const { d } = await driver();
    const live = await d.create('env_a', 'db');
    await writeFile(path.join(live, 'f'), '1');
    await d.snapshot('env_a', 's', ['db']);
    await writeFile(path.join(live, 'f'), '2');
    await d.snapshot('env_a', 's', ['db']);
    await expect(d.restore('env_a', 'nope', ['db'])).rejects.toThrow(/does not exist/);

    expect(await d.fork('env_a', 's', 'env_b', ['db', 'other'])).toEqual(['db']);
    expect(await readFile(path.join(d.path('env_b', 'db'), 'f'), 'utf8')).toBe('2');

    expect(await d.destroy('env_a')).toEqual({ datasets: 1, snapshots: 1 });
    expect(await d.destroy('env_a')).toEqual({ datasets: 0, snapshots: 0 });
  });

  it('a fork and a restore are trees of their own: what is written into them never reaches the snapshot or the source', async () => {
    const { dir, d } = await driver();
    const live = await d.create('env_a', 'db');
    await mkdir(path.join(live, 'sub'));
    await writeFile(path.join(live, 'sub', 'rows.txt'), 'v1');
    await d.snapshot('env_a', 's', ['db']);
    const snap = path.join(dir, 'datasets', 'env_a', 'snapshots', 's', 'db');

    expect(await d.fork('env_a', 's', 'env_b', ['db'])).toEqual(['db']);
    const fork = d.path('env_b', 'db');
    expect((await lstat(fork)).isDirectory()).toBe(true);
    expect((await lstat(path.join(fork, 'sub'))).isDirectory()).toBe(true);
    await writeFile(path.join(fork, 'sub', 'rows.txt'), 'written in the fork');
    await writeFile(path.join(fork, 'only-fork.txt'), 'x');
    expect(await readFile(path.join(snap, 'sub', 'rows.txt'), 'utf8')).toBe('v1');
    expect(await readFile(path.join(live, 'sub', 'rows.txt'), 'utf8')).toBe('v1');
    expect((await readdir(snap)).sort()).toEqual(['sub']);
    expect((await readdir(live)).sort()).toEqual(['sub']);

    // A second fork of the same snapshot starts from the snapshot, not from the first fork.
    await d.fork('env_a', 's', 'env_c', ['db']);
    expect(await readFile(path.join(d.path('env_c', 'db'), 'sub', 'rows.txt'), 'utf8')).toBe('v1');
    expect(await readdir(d.path('env_c', 'db'))).toEqual(['sub']);

    // The same for a restore: the live tree it makes is not the snapshot's.
    await d.restore('env_a', 's', ['db']);
    expect((await lstat(live)).isDirectory()).toBe(true);
    await writeFile(path.join(live, 'sub', 'rows.txt'), 'written after the restore');
    expect(await readFile(path.join(snap, 'sub', 'rows.txt'), 'utf8')).toBe('v1');
    expect(await readFile(path.join(fork, 'sub', 'rows.txt'), 'utf8')).toBe('written in the fork');
  });

  it('copies no socket, FIFO or device node (a planted /dev/zero would never end), and keeps modes and timestamps', async () => {
    const { dir, d } = await driver();
    const live = await d.create('env_a', 'db');
    await writeFile(path.join(live, 'rows'), 'v1');
    await chmod(path.join(live, 'rows'), 0o640);
    await utimes(path.join(live, 'rows'), 1_000_000, 1_000_000);
    await runOrThrow(['mkfifo', path.join(live, 'fifo')]);
    if (process.getuid?.() === 0) {
      await runOrThrow(['mknod', path.join(live, 'zero'), 'c', '1', '5']);
      await runOrThrow(['mknod', path.join(live, 'disk'), 'b', '7', '0']);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(live, 'sock'), resolve));
    try {
      await d.snapshot('env_a', 's', ['db']);
    } finally {
      await new Promise((r) => server.close(r));
    }
    const snap = path.join(dir, 'datasets', 'env_a', 'snapshots', 's', 'db');
    expect((await readdir(snap)).sort()).toEqual(['rows']);
    const info = await stat(path.join(snap, 'rows'));
    expect(info.mode & 0o777).toBe(0o640);
    expect(info.mtimeMs).toBe(1_000_000_000);
  });

  it.runIf(process.getuid?.() === 0)("keeps every entry's owner, links included, in snapshots and forks", async () => {
    const { dir, d } = await driver();
    const live = await d.create('env_a', 'db');
    await mkdir(path.join(live, 'sub', 'deeper'), { recursive: true });
    await writeFile(path.join(live, 'sub', 'deeper', 'rows'), 'v1');
    await symlink('deeper/rows', path.join(live, 'sub', 'link'));
    const owners: Record<string, [number, number]> = {
      '.': [4100, 4101], sub: [4200, 4201], 'sub/deeper': [4300, 4301], 'sub/deeper/rows': [4400, 4401], 'sub/link': [4500, 4501],
    };
    for (const [rel, [uid, gid]] of Object.entries(owners)) await lchown(path.join(live, rel), uid, gid);
    await d.snapshot('env_a', 's', ['db']);
    await d.fork('env_a', 's', 'env_b', ['db']);
    for (const copy of [path.join(dir, 'datasets', 'env_a', 'snapshots', 's', 'db'), d.path('env_b', 'db')]) {
      for (const [rel, [uid, gid]] of Object.entries(owners)) {
        const info = await lstat(path.join(copy, rel));
        expect([rel, info.uid, info.gid]).toEqual([rel, uid, gid]);
      }
    }
  });

  it('refuses names that would escape its directory', async () => {
    const { d } = await driver();
    await expect(d.create('..', 'db')).rejects.toThrow(/invalid env name/);
    expect(() => d.path('env', '../x')).toThrow(/invalid dataset name/);
  });
});
