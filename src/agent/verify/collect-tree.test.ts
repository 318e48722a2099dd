/** collectTree against a hostile tree built here: every special file kind, escapes, limits. */
import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, readdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COLLECT_LIMITS } from '../../contracts/verify.js';
import { collectTree, declaredRelative } from './collect-tree.js';

let base: string;
let root: string;
let socket: net.Server;

/** Every file under `dir`, relative, sorted. */
async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) await walk(path.join(d, e.name), r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'denv-collect-'));
  root = path.join(base, 'service');
  const out = path.join(root, 'out');
  await mkdir(path.join(out, 'deep', 'er'), { recursive: true });
  await writeFile(path.join(out, 'answer.txt'), '42\n');
  await writeFile(path.join(out, 'deep', 'er', 'note.md'), 'fine');
  await writeFile(path.join(root, 'secret.txt'), 'not yours');
  await writeFile(path.join(base, 'outside.txt'), 'outside the root');
  await symlink('/etc/shadow', path.join(out, 'shadow'));
  await symlink('..', path.join(out, 'up'));
  await symlink('loop-b', path.join(out, 'loop-a'));
  await symlink('loop-a', path.join(out, 'loop-b'));
  execFileSync('mkfifo', [path.join(out, 'fifo')]);
  execFileSync('mknod', [path.join(out, 'zero'), 'c', '1', '5']);
  socket = net.createServer().listen(path.join(out, 'sock'));
  await link(path.join(root, 'secret.txt'), path.join(out, 'hardlink'));
  await writeFile(path.join(out, 'pair-1'), 'both links inside');
  await link(path.join(out, 'pair-1'), path.join(out, 'pair-2'));
  await writeFile(path.join(out, 'huge-sparse'), '');
  await truncate(path.join(out, 'huge-sparse'), 64 * 1024 ** 3);
  await writeFile(path.join(out, '..strange name\n'), 'a name, not a path');
  await mkdir(path.join(root, 'linkdir-target'));
  await writeFile(path.join(root, 'linkdir-target', 'x'), 'x');
  await symlink('linkdir-target', path.join(root, 'linkdir'));
});
afterAll(async () => {
  socket?.close();
  await rm(base, { recursive: true, force: true });
});

describe('declaredRelative', () => {
  it.each([
    ['out', { rel: 'out' }],
    ['./out/', { rel: 'out' }],
    ['.', { rel: '.' }],
    ['out/../out/answer.txt', { rel: 'out/answer.txt' }],
    ['../outside.txt', { refused: 'escapes the service root' }],
    ['out/../../x', { refused: 'escapes the service root' }],
    ['/etc/passwd', { refused: 'escapes the service root' }],
    ['', { refused: 'not a path' }],
  ])('%j → %j', (declared, want) => {
    expect(declaredRelative('/srv/app', declared)).toEqual(want);
  });

  it('accepts an absolute path inside the root', () => {
    expect(declaredRelative('/srv/app', '/srv/app/out')).toEqual({ rel: 'out' });
  });
});

describe('collectTree', () => {
  it('copies only regular files and directories and lists every refusal with its reason', async () => {
    const dest = path.join(base, 'collected');
    const t0 = Date.now();
    const res = await collectTree(root, ['out', '../outside.txt', '/etc', 'linkdir/x', 'nope', 'linkdir'], dest, DEFAULT_COLLECT_LIMITS);
    expect(Date.now() - t0).toBeLessThan(5000); // never blocks on the FIFO, the device or the loop
    const reasons = Object.fromEntries(res.refused.map((r) => [r.path, r.reason]));
    expect(reasons).toMatchObject({
      'out/shadow': 'symlink',
      'out/up': 'symlink',
      'out/loop-a': 'symlink',
      'out/loop-b': 'symlink',
      'out/fifo': 'fifo',
      'out/zero': 'device',
      'out/sock': 'socket',
      'out/hardlink': 'hard link to a file outside the collected paths',
      '../outside.txt': 'escapes the service root',
      '/etc': 'escapes the service root',
      'linkdir/x': 'symlink in path',
      linkdir: 'symlink',
    });
    expect(reasons['out/huge-sparse']).toMatch(/^byte limit/);
    expect(res.missing).toEqual(['nope']);
    expect(res.refused_count).toBe(res.refused.length);
    expect(await listTree(dest)).toEqual(['out/', 'out/..strange name\n', 'out/answer.txt', 'out/deep/', 'out/deep/er/', 'out/deep/er/note.md', 'out/pair-1', 'out/pair-2'].sort());
    expect(await readFile(path.join(dest, 'out', 'answer.txt'), 'utf8')).toBe('42\n');
    expect(res).toMatchObject({ files: 8, bytes: 3 + 4 + 2 * 'both links inside'.length + 'a name, not a path'.length });
    // Nothing was written outside dest.
    expect((await readdir(base)).sort()).toEqual(['collected', 'outside.txt', 'service']);
  });

  it('fails closed on the entry, byte and depth limits, without walking past them', async () => {
    const many = path.join(base, 'many');
    await mkdir(path.join(many, 'flat'), { recursive: true });
    await Promise.all(Array.from({ length: 300 }, (_, i) => writeFile(path.join(many, 'flat', `f${i}`), 'x')));
    await mkdir(path.join(many, 'a', 'b', 'c', 'd'), { recursive: true });
    await writeFile(path.join(many, 'a', 'b', 'c', 'd', 'deep.txt'), 'deep');
    await writeFile(path.join(many, 'big'), Buffer.alloc(2048));
    const dest = path.join(base, 'limited');
    const flat = await collectTree(many, ['flat'], dest, { max_files: 100, max_bytes: 1024, max_depth: 2 });
    expect(flat.refused).toEqual([{ path: 'flat/', reason: 'entry limit (100) reached; 201 entries not collected' }]);
    expect(flat.refused_count).toBe(201);
    expect(flat.files).toBe(100);
    expect((await listTree(dest)).length).toBe(100);

    const rest = await collectTree(many, ['a', 'big'], dest, { max_files: 100, max_bytes: 1024, max_depth: 2 });
    expect(rest.refused).toEqual([
      { path: 'a/b/c/d', reason: 'depth limit (2) reached' },
      { path: 'big', reason: 'byte limit: 2048 bytes would exceed 1024' },
    ]);
    expect(await listTree(dest)).toEqual(['a/', 'a/b/', 'a/b/c/']);
  });
});
