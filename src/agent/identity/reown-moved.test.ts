/**
 * reownMovedTree (env.import): entries owned by a uid or gid of denv's dynamic range (the old
 * host's uid of the env) become the identity's; other owners (root, a `user:` such as 105) stay;
 * a symlink is lchown'ed, never followed; the count is exactly the entries that changed.
 * Giving files away needs root, which these tests run as.
 */
import { mkdtempSync } from 'node:fs';
import { lchown, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reownMovedTree } from './ownership.js';
import { DYNAMIC_UID_MAX, DYNAMIC_UID_MIN } from './uid-registry.js';

const RANGE = { min: DYNAMIC_UID_MIN, max: DYNAMIC_UID_MAX };
const OLD = 61190; // the env's uid on the old host
const ME = { uid: 61300, gid: 61301, name: null }; // its uid and gid here

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'denv-reown-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const owner = (p: string) => lstat(p).then((i) => [i.uid, i.gid]);

describe('reownMovedTree', () => {
  it('runs as root (giving files away needs it)', () => {
    expect(process.getuid?.()).toBe(0);
  });

  it("gives the old host's uid and gid of the env to this host's, keeps other owners, and counts the changes", async () => {
    const root = path.join(tmp, 'data');
    const p = (rel: string) => path.join(root, rel);
    const made = async (rel: string, uid: number, gid: number, dir = false) => {
      if (dir) await mkdir(p(rel), { recursive: true });
      else await writeFile(p(rel), rel);
      await lchown(p(rel), uid, gid);
    };
    await made('', OLD, OLD, true); // the dataset itself
    await made('rows', OLD, OLD);
    await made('by-root', 0, 0);
    await made('by-postgres', 105, 105);
    await made('mixed', OLD, 105); // only the uid changes
    await made('group-only', 105, OLD); // only the gid changes
    await made('already-mine', ME.uid, ME.gid);
    await made('below-range', DYNAMIC_UID_MIN - 1, DYNAMIC_UID_MIN - 1);
    await made('range-top', DYNAMIC_UID_MAX, DYNAMIC_UID_MAX);
    await made('above-range', DYNAMIC_UID_MAX + 1, DYNAMIC_UID_MAX + 1);
    await made('sub', OLD, 0, true);
    await made('sub/deeper', OLD, OLD, true);
    await made('sub/deeper/file', OLD, OLD);

    // The dataset, rows, mixed, group-only, range-top, sub, sub/deeper, sub/deeper/file.
    expect(await reownMovedTree(root, ME, RANGE)).toBe(8);

    const mine = [ME.uid, ME.gid];
    expect(await owner(root)).toEqual(mine);
    expect(await owner(p('rows'))).toEqual(mine);
    expect(await owner(p('by-root'))).toEqual([0, 0]);
    expect(await owner(p('by-postgres'))).toEqual([105, 105]);
    expect(await owner(p('mixed'))).toEqual([ME.uid, 105]);
    expect(await owner(p('group-only'))).toEqual([105, ME.gid]);
    expect(await owner(p('already-mine'))).toEqual(mine);
    expect(await owner(p('below-range'))).toEqual([DYNAMIC_UID_MIN - 1, DYNAMIC_UID_MIN - 1]);
    expect(await owner(p('range-top'))).toEqual(mine);
    expect(await owner(p('above-range'))).toEqual([DYNAMIC_UID_MAX + 1, DYNAMIC_UID_MAX + 1]);
    expect(await owner(p('sub'))).toEqual([ME.uid, 0]);
    expect(await owner(p('sub/deeper'))).toEqual(mine);
    expect(await owner(p('sub/deeper/file'))).toEqual(mine);

    // A second pass finds nothing left to change.
    expect(await reownMovedTree(root, ME, RANGE)).toBe(0);
  });

  it('changes a symlink itself, never what it points to', async () => {
    const root = path.join(tmp, 'data');
    await mkdir(root);
    const outside = path.join(tmp, 'outside');
    await writeFile(outside, 'not part of the dataset');
    await lchown(outside, OLD, OLD);
    await lchown(root, 0, 0);
    await symlink(outside, path.join(root, 'link'));
    await lchown(path.join(root, 'link'), OLD, OLD);
    await symlink(outside, path.join(root, 'root-link'));
    await lchown(path.join(root, 'root-link'), 0, 0);

    expect(await reownMovedTree(root, ME, RANGE)).toBe(1);
    expect(await owner(path.join(root, 'link'))).toEqual([ME.uid, ME.gid]);
    expect(await owner(path.join(root, 'root-link'))).toEqual([0, 0]);
    expect(await owner(outside)).toEqual([OLD, OLD]);
  });

  it('counts nothing for a dataset that is not there', async () => {
    expect(await reownMovedTree(path.join(tmp, 'missing'), ME, RANGE)).toBe(0);
  });
});
