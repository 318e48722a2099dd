/**
 * A snapshot exported as a tar on one host and imported on another (two CopyDatasetDriver roots)
 * arrives identical: contents, modes, symlink target text, numeric owners. A dataset the snapshot
 * lacks is skipped; no dataset makes an empty archive that imports as none; a btrfs stream is
 * refused by the copy driver; an archive holding anything but dataset directories is refused and
 * leaves neither a snapshot nor a staging directory behind.
 */
import { mkdtempSync } from 'node:fs';
import { chmod, lchown, lstat, mkdir, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../lib/exec.js';
import { CopyDatasetDriver } from './copy/copy-driver.js';

const ENV = 'env_m';
const MOVED_UID = 61200;
let tmp: string;
let a: CopyDatasetDriver;
let b: CopyDatasetDriver;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'denv-archive-'));
  a = new CopyDatasetDriver(path.join(tmp, 'host-a'));
  b = new CopyDatasetDriver(path.join(tmp, 'host-b'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Every entry under `dir` (sorted): its kind, mode, owner and content or link text. */
async function listing(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(path.join(dir, rel))).sort()) {
    const p = path.join(rel, name);
    const info = await lstat(path.join(dir, p));
    const head = `${p} ${(info.mode & 0o7777).toString(8)} ${info.uid}:${info.gid}`;
    if (info.isSymbolicLink()) out.push(`${head} -> ${await readlink(path.join(dir, p))}`);
    else if (info.isDirectory()) out.push(`${head} dir`, ...(await listing(dir, p)));
    else out.push(`${head} = ${(await readFile(path.join(dir, p))).toString('base64')}`);
  }
  return out;
}

const snapshotsOf = (root: string) => path.join(tmp, root, ENV, 'snapshots');

async function fillHostA(): Promise<void> {
  const data = await a.create(ENV, 'data');
  await mkdir(path.join(data, 'sub', 'deeper'), { recursive: true });
  await writeFile(path.join(data, 'sub', 'deeper', 'rows.txt'), 'row 1\nrow 2\n');
  await symlink('sub/deeper/rows.txt', path.join(data, 'link'));
  await symlink('/etc/hostname', path.join(data, 'outside'));
  await writeFile(path.join(data, 'secret'), 'only the owner and group');
  await chmod(path.join(data, 'secret'), 0o640);
  await mkdir(path.join(data, 'empty'));
  const other = await a.create(ENV, 'other');
  await writeFile(path.join(other, 'blob.bin'), Buffer.from([0, 1, 2, 255, 254]));
}

describe('snapshot archive round trip (copy driver, tar)', () => {
  it('imports on host B exactly what host A exported, skipping a dataset the snapshot lacks', async () => {
    await fillHostA();
    expect(await a.snapshot(ENV, 'snap', ['data', 'other'])).toEqual(['data', 'other']);
    const file = path.join(tmp, 'archive.tar');
    expect(await a.exportSnapshot(ENV, 'snap', ['data', 'other', 'missing'], 'tar', file)).toEqual(['data', 'other']);

    expect(await b.importSnapshot(ENV, 'snap', 'tar', file)).toEqual(['data', 'other']);
    expect(await b.hasSnapshot(ENV, 'snap')).toBe(true);
    const source = await listing(path.join(snapshotsOf('host-a'), 'snap'));
    expect(await listing(path.join(snapshotsOf('host-b'), 'snap'))).toEqual(source);
    // The listing is not vacuous: what it compared.
    expect(source.map((l) => l.split(' ')[0])).toEqual([
      'data', 'data/empty', 'data/link', 'data/outside', 'data/secret', 'data/sub', 'data/sub/deeper', 'data/sub/deeper/rows.txt', 'other', 'other/blob.bin',
    ]);
    const imported = path.join(snapshotsOf('host-b'), 'snap', 'data');
    expect(await readlink(path.join(imported, 'link'))).toBe('sub/deeper/rows.txt');
    expect(await readlink(path.join(imported, 'outside'))).toBe('/etc/hostname');
    expect((await stat(path.join(imported, 'secret'))).mode & 0o777).toBe(0o640);
    expect((await readdir(snapshotsOf('host-b'))).filter((e) => e.startsWith('.'))).toEqual([]);
  });

  // Owners can be given away and kept only by root, which the agent is (and these tests are, here).
  it.runIf(process.getuid?.() === 0)('keeps numeric owners, of files and of links', async () => {
    await fillHostA();
    const data = a.path(ENV, 'data');
    await writeFile(path.join(data, 'owned'), 'the env user wrote this');
    await lchown(path.join(data, 'owned'), MOVED_UID, MOVED_UID);
    await lchown(path.join(data, 'sub'), MOVED_UID, MOVED_UID + 1);
    await lchown(path.join(data, 'link'), MOVED_UID + 2, 105);
    await a.snapshot(ENV, 'snap', ['data']);
    const file = path.join(tmp, 'archive.tar');
    expect(await a.exportSnapshot(ENV, 'snap', ['data'], 'tar', file)).toEqual(['data']);
    expect(await b.importSnapshot(ENV, 'snap', 'tar', file)).toEqual(['data']);

    const imported = path.join(snapshotsOf('host-b'), 'snap', 'data');
    const owner = async (rel: string) => lstat(path.join(imported, rel)).then((i) => [i.uid, i.gid]);
    expect(await owner('owned')).toEqual([MOVED_UID, MOVED_UID]);
    expect(await owner('sub')).toEqual([MOVED_UID, MOVED_UID + 1]);
    expect(await owner('link')).toEqual([MOVED_UID + 2, 105]);
    expect(await owner('secret')).toEqual([0, 0]);
    expect(await listing(imported)).toEqual(await listing(path.join(snapshotsOf('host-a'), 'snap', 'data')));
  });

  it('writes an empty archive for no dataset, which imports as none', async () => {
    await a.snapshot(ENV, 'snap', []);
    const file = path.join(tmp, 'empty.tar');
    expect(await a.exportSnapshot(ENV, 'snap', ['missing'], 'tar', file)).toEqual([]);
    expect((await stat(file)).size).toBe(0);
    expect(await b.importSnapshot(ENV, 'snap', 'tar', file)).toEqual([]);
    expect(await b.snapshotDatasets(ENV, 'snap')).toEqual([]);
  });

  it('refuses a btrfs stream on plain directories, naming tar, and leaves nothing behind', async () => {
    await fillHostA();
    await a.snapshot(ENV, 'snap', ['data']);
    const file = path.join(tmp, 'stream');
    await expect(a.exportSnapshot(ENV, 'snap', ['data'], 'btrfs', file)).rejects.toThrow(/as tar, not as a btrfs stream/);
    await writeFile(file, 'not really a stream');
    await expect(b.importSnapshot(ENV, 'snap', 'btrfs', file)).rejects.toThrow(/can take a tar archive, not a btrfs stream/);
    expect(await b.hasSnapshot(ENV, 'snap')).toBe(false);
    expect(await readdir(snapshotsOf('host-b'))).toEqual([]);
  });

  it('refuses an archive with a regular file at its top, leaving no snapshot and no staging directory', async () => {
    const src = path.join(tmp, 'crafted');
    await mkdir(path.join(src, 'data'), { recursive: true });
    await writeFile(path.join(src, 'data', 'rows.txt'), 'fine');
    await writeFile(path.join(src, 'notes.txt'), 'not a dataset');
    const file = path.join(tmp, 'crafted.tar');
    const made = await run(['tar', '--create', '--file', file, '--directory', src, '--', 'data', 'notes.txt']);
    expect(made.exitCode).toBe(0);

    await expect(b.importSnapshot(ENV, 'snap', 'tar', file)).rejects.toThrow('the archive holds notes.txt, which is not a dataset directory');
    expect(await b.hasSnapshot(ENV, 'snap')).toBe(false);
    expect(await readdir(snapshotsOf('host-b'))).toEqual([]);
  });

  it('refuses an archive whose dataset is a link (it would make the live dataset point anywhere on the host)', async () => {
    const src = path.join(tmp, 'crafted-link');
    const outside = path.join(tmp, 'outside');
    await mkdir(src, { recursive: true });
    await mkdir(outside, { recursive: true });
    await symlink(outside, path.join(src, 'data'));
    const file = path.join(tmp, 'crafted-link.tar');
    expect((await run(['tar', '--create', '--file', file, '--directory', src, '--', 'data'])).exitCode).toBe(0);

    await expect(b.importSnapshot(ENV, 'snap', 'tar', file)).rejects.toThrow('the archive holds data, which is not a dataset directory');
    expect(await b.hasSnapshot(ENV, 'snap')).toBe(false);
    expect(await readdir(snapshotsOf('host-b'))).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)('refuses an archive holding a device node or a setuid file (unpacked as root, either would reach past the data)', async () => {
    for (const [name, make] of [
      ['device', async (dir: string) => expect((await run(['mknod', path.join(dir, 'disk'), 'b', '7', '0'])).exitCode).toBe(0)],
      ['setuid', async (dir: string) => { await writeFile(path.join(dir, 'su'), '#!/bin/sh\n'); await chmod(path.join(dir, 'su'), 0o4755); }],
    ] as const) {
      const src = path.join(tmp, `crafted-${name}`);
      await mkdir(path.join(src, 'data', 'deep'), { recursive: true });
      await make(path.join(src, 'data', 'deep'));
      const file = path.join(tmp, `crafted-${name}.tar`);
      expect((await run(['tar', '--create', '--file', file, '--directory', src, '--', 'data'])).exitCode).toBe(0);
      await expect(b.importSnapshot(ENV, 'snap', 'tar', file)).rejects.toThrow(name === 'device' ? 'the archive holds a device node (data/deep/disk): refused' : 'the archive holds a setuid or setgid entry (data/deep/su): refused');
      expect(await b.hasSnapshot(ENV, 'snap')).toBe(false);
      expect(await readdir(snapshotsOf('host-b'))).toEqual([]);
    }
  });
});
