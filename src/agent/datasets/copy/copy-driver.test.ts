import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

  it('refuses names that would escape its directory', async () => {
    const { d } = await driver();
    await expect(d.create('..', 'db')).rejects.toThrow(/invalid env name/);
    expect(() => d.path('env', '../x')).toThrow(/invalid dataset name/);
  });
});
