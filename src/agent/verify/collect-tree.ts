/**
 * The copy at the heart of `verify.collect` (DESIGN §14): an AI agent's declared output paths
 * are copied out of a service it controlled, so everything here assumes the tree is hostile.
 *
 *   - Only regular files and directories are copied. Symlinks (never followed, at any depth,
 *     including inside a declared path), FIFOs, sockets, device nodes, hard links to files
 *     outside the collected set, and declared paths escaping the service root are refused and
 *     listed with the reason.
 *   - Two passes: plan (lstat only, nothing opened), then copy. A file is opened with
 *     O_NOFOLLOW | O_NONBLOCK (a FIFO or symlink swapped in after planning neither blocks nor is
 *     followed), then must be the same inode, still a regular file, at the same real path
 *     (checked through /proc/self/fd, so a parent directory swapped for a symlink is caught),
 *     and is read only up to its planned size.
 *   - Limits on entries, bytes and depth fail closed: what is beyond them is refused, not
 *     silently dropped, and a directory past the entry limit is not even listed further.
 *   - Writes happen only below `dest`, which is created fresh (0700) by this module; every
 *     destination path is built from names read by readdir and checked to be inside `dest`.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { REFUSALS_LISTED, type CollectLimits, type Refusal } from '../../contracts/verify.js';

export interface CollectOutcome {
  readonly files: number;
  readonly bytes: number;
  readonly missing: string[];
  readonly refused: Refusal[];
  readonly refused_count: number;
}

interface PlannedDir {
  readonly kind: 'dir';
  /** Path relative to the service root, `/`-separated. */
  readonly rel: string;
}

interface PlannedFile {
  readonly kind: 'file';
  readonly rel: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly nlink: number;
}

type Planned = PlannedDir | PlannedFile;

const COPY_CHUNK = 256 * 1024;

/** The reason a non-regular, non-directory entry is refused. */
function refusalKind(info: Awaited<ReturnType<typeof lstat>>): string {
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
  return 'not a regular file or directory';
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

class Refusals {
  readonly listed: Refusal[] = [];
  count = 0;
  add(p: string, reason: string, n = 1): void {
    this.count += n;
    if (this.listed.length < REFUSALS_LISTED) this.listed.push({ path: p, reason });
  }
}

/**
 * The declared path `declared` as a normalised path relative to `root`, or a refusal reason.
 * `.` (the whole root) is allowed; anything resolving outside the root is not.
 */
export function declaredRelative(root: string, declared: string): { rel: string } | { refused: string } {
  if (declared === '' || declared.includes('\0')) return { refused: 'not a path' };
  const rel = path.isAbsolute(declared) ? path.relative(root, path.normalize(declared)) : path.normalize(declared);
  if (rel === '' || rel === '.') return { rel: '.' };
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return { refused: 'escapes the service root' };
  return { rel: rel.replace(/\/+$/, '') };
}

/**
 * Copy `paths` (relative to `root`, the service's working dir) into `dest` (replaced if it
 * exists). Never throws for what it finds in the tree: that becomes `missing` and `refused`.
 */
export async function collectTree(root: string, paths: readonly string[], dest: string, limits: CollectLimits): Promise<CollectOutcome> {
  const rootReal = await realpath(root);
  const refused = new Refusals();
  const missing: string[] = [];
  const plan: Planned[] = [];
  /** Paths already planned: a path declared twice (or inside another declared one) counts once. */
  const planned = new Set<string>();
  let entries = 0;
  let bytes = 0;

  // ---- pass 1: plan (lstat and readdir only) ----
  const planTree = async (top: string): Promise<void> => {
    // Depth-first with an explicit stack: a hostile tree's depth cannot exhaust the call stack.
    const stack: { rel: string; depth: number }[] = [{ rel: top, depth: 0 }];
    while (stack.length > 0) {
      const { rel, depth } = stack.pop()!;
      if (planned.has(rel)) continue;
      planned.add(rel);
      const abs = rel === '.' ? rootReal : path.join(rootReal, rel);
      const info = await lstat(abs).catch(() => null);
      if (!info) {
        refused.add(rel, 'vanished while collecting');
        continue;
      }
      if (!info.isDirectory() && !info.isFile()) {
        refused.add(rel, refusalKind(info));
        continue;
      }
      if (entries >= limits.max_files) {
        refused.add(rel, `entry limit (${limits.max_files}) reached`);
        continue;
      }
      if (info.isFile()) {
        if (bytes + info.size > limits.max_bytes) {
          refused.add(rel, `byte limit: ${info.size} bytes would exceed ${limits.max_bytes}`);
          continue;
        }
        entries++;
        bytes += info.size;
        plan.push({ kind: 'file', rel, dev: info.dev, ino: info.ino, size: info.size, nlink: info.nlink });
        continue;
      }
      if (depth > limits.max_depth) {
        refused.add(rel, `depth limit (${limits.max_depth}) reached`);
        continue;
      }
      entries++;
      plan.push({ kind: 'dir', rel });
      const names = await readdir(abs).catch(() => null);
      if (names === null) {
        refused.add(rel, 'unreadable directory');
        continue;
      }
      const room = limits.max_files - entries;
      if (names.length > room) {
        // Past the entry limit nothing more is looked at (a 100k-file directory costs one readdir).
        const over = names.length - Math.max(0, room);
        refused.add(rel === '.' ? '.' : `${rel}/`, `entry limit (${limits.max_files}) reached; ${over} entries not collected`, over);
        names.length = Math.max(0, room);
      }
      for (const name of names.sort().reverse()) stack.push({ rel: rel === '.' ? name : `${rel}/${name}`, depth: depth + 1 });
    }
  };

  for (const declared of paths) {
    const d = declaredRelative(rootReal, declared);
    if ('refused' in d) {
      refused.add(declared, d.refused);
      continue;
    }
    // Every component above the last must be a real directory: a symlink anywhere in the path is refused.
    const parts = d.rel === '.' ? [] : d.rel.split('/');
    let ok = true;
    for (let i = 0; i < parts.length - 1 && ok; i++) {
      const info = await lstat(path.join(rootReal, ...parts.slice(0, i + 1))).catch(() => null);
      if (!info) {
        missing.push(declared);
        ok = false;
      } else if (!info.isDirectory()) {
        refused.add(declared, info.isSymbolicLink() ? 'symlink in path' : 'not a directory in path');
        ok = false;
      }
    }
    if (!ok) continue;
    if (!(await lstat(d.rel === '.' ? rootReal : path.join(rootReal, d.rel)).catch(() => null))) {
      missing.push(declared);
      continue;
    }
    await planTree(d.rel);
  }

  // Hard links: a file is collected only when every one of its links is inside the collected set.
  const linksSeen = new Map<string, number>();
  for (const p of plan) if (p.kind === 'file' && p.nlink > 1) linksSeen.set(`${p.dev}:${p.ino}`, (linksSeen.get(`${p.dev}:${p.ino}`) ?? 0) + 1);
  const kept = plan.filter((p) => {
    if (p.kind !== 'file' || p.nlink <= 1) return true;
    const seen = linksSeen.get(`${p.dev}:${p.ino}`) ?? 0;
    if (seen >= p.nlink) return true;
    refused.add(p.rel, 'hard link to a file outside the collected paths');
    return false;
  });

  // ---- pass 2: copy ----
  await rm(dest, { recursive: true, force: true });
  await mkdir(dest, { recursive: true, mode: 0o700 });
  const destReal = await realpath(dest);
  let files = 0;
  let copiedBytes = 0;
  for (const p of kept) {
    const target = p.rel === '.' ? destReal : path.join(destReal, p.rel);
    if (target !== destReal && !isInside(destReal, target)) {
      refused.add(p.rel, 'escapes the collect directory');
      continue;
    }
    if (p.kind === 'dir') {
      await mkdir(target, { recursive: true, mode: 0o755 });
      files++;
      continue;
    }
    const copied = await copyFile(rootReal, p, target);
    if (typeof copied === 'string') {
      refused.add(p.rel, copied);
      continue;
    }
    files++;
    copiedBytes += copied;
  }
  return { files, bytes: copiedBytes, missing, refused: refused.listed, refused_count: refused.count };
}

/** Copy one planned file; the number of bytes, or the reason it was refused. */
async function copyFile(rootReal: string, p: PlannedFile, target: string): Promise<number | string> {
  const source = path.join(rootReal, p.rel);
  let src;
  try {
    src = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? 'symlink' : `cannot open (${code ?? 'error'})`;
  }
  try {
    const info = await src.stat();
    if (!info.isFile() || info.ino !== p.ino || info.dev !== p.dev) return 'changed while collecting';
    if (info.nlink !== p.nlink) return 'hard link count changed while collecting';
    const real = await readlink(`/proc/self/fd/${src.fd}`).catch(() => null);
    if (real !== null && real !== source) return 'path changed while collecting';
    await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    // 'wx': O_CREAT | O_EXCL — never follows or overwrites anything at the target.
    const out = await open(target, 'wx', 0o644);
    let total = 0;
    try {
      const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(1, p.size)));
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, buf.length, null);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > p.size) break;
        await out.write(buf, 0, bytesRead);
      }
    } finally {
      await out.close();
    }
    if (total !== p.size) {
      await rm(target, { force: true });
      return 'changed size while collecting';
    }
    return total;
  } finally {
    await src.close();
  }
}
