/**
 * Giving a service's user what it needs and nothing more: its work dir and its datasets owned by
 * it (mode 0700), the directories above them traversable but not listable (0711), and a check
 * that a path is reachable by a user before a start fails with a bare EACCES.
 */
import { chmod, chown, lchown, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { Identity } from './identity.js';

/** Create `dir` (0711 for missing parents) and make `identity` own it with `mode`. */
export async function ownDir(dir: string, identity: Identity | null, mode = 0o700): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o711 });
  if (!identity) return;
  const info = await stat(dir);
  if (info.uid !== identity.uid || info.gid !== identity.gid) await chown(dir, identity.uid, identity.gid);
  if ((info.mode & 0o777) !== mode) await chmod(dir, mode);
}

/**
 * A fresh dataset (still owned by the agent's user) becomes `identity`'s; a dataset some user
 * already owns keeps its owner (its files are theirs: a fork or a restored snapshot).
 */
export async function claimDataset(dir: string, identity: Identity | null): Promise<void> {
  if (!identity) return;
  const info = await stat(dir);
  if (info.uid === 0 && identity.uid !== 0) {
    await chown(dir, identity.uid, identity.gid);
    await chmod(dir, 0o700);
  }
}

/**
 * Make every entry under `root` (itself included) owned by `identity`, without following links,
 * children first: while a directory is still root's, its user cannot swap an entry for a link
 * that the walk would then follow.
 */
export async function ownTree(root: string, identity: Identity): Promise<void> {
  const info = await lstat(root).catch(() => null);
  if (!info) return;
  if (info.isDirectory()) for (const entry of await readdir(root)) await ownTree(path.join(root, entry), identity);
  await lchown(root, identity.uid, identity.gid);
}

/**
 * Files a moved env brought from another host (`env.import`): what that host's uid of the env
 * owned (a uid in denv's dynamic range) becomes this host's uid of the env; owners outside the
 * range (a `user:` such as postgres, root) are kept as they are. Children first, never following
 * a link, as ownTree. Returns how many entries changed owner.
 */
export async function reownMovedTree(root: string, identity: Identity, range: { readonly min: number; readonly max: number }): Promise<number> {
  const info = await lstat(root).catch(() => null);
  if (!info) return 0;
  let changed = 0;
  if (info.isDirectory()) for (const entry of await readdir(root)) changed += await reownMovedTree(path.join(root, entry), identity, range);
  const inRange = (id: number) => id >= range.min && id <= range.max;
  const uid = inRange(info.uid) ? identity.uid : info.uid;
  const gid = inRange(info.gid) ? identity.gid : info.gid;
  if (uid !== info.uid || gid !== info.gid) {
    await lchown(root, uid, gid);
    changed++;
  }
  return changed;
}

/**
 * Throws AGENT_ERROR naming the first directory on the way to `target` that `identity` cannot
 * pass (no search permission for it), so a start fails with the reason instead of EACCES.
 */
export async function assertReachable(target: string, identity: Identity | null, what: string): Promise<void> {
  if (!identity || identity.uid === 0) return;
  let dir = path.dirname(path.resolve(target));
  const chain: string[] = [];
  for (;;) {
    chain.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain) {
    const info = await stat(d).catch(() => null);
    if (!info) return; // created later, by the agent
    const bit = info.uid === identity.uid ? 0o100 : info.gid === identity.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) {
      throw new DenvError('AGENT_ERROR', `${what} ${target} is not reachable by the service's user (uid ${identity.uid}): ${d} is mode ${(info.mode & 0o777).toString(8)}; make it traversable (chmod o+x) or move the files`);
    }
  }
}
