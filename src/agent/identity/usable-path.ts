/**
 * The PATH a process run as a service's own user gets: the agent's, without the directories that
 * user cannot search. Such entries are worse than useless: an agent run by root whose PATH starts
 * with pyenv's shims (`/root/.pyenv/shims`, under root's 0700 home) gave a healthcheck
 * `["CMD", "python3", …]` the shim, which failed `Permission denied` (exit 126), instead of
 * `/usr/bin/python3` further on. An entry is kept when the user may search it and every directory
 * above it (mode bits against its uid and gid: services run with no supplementary groups,
 * launch-argv.ts); one that cannot be read (missing) is kept as it was. An agent's PATH and its
 * directories' modes rarely change, so the answer is remembered per user and PATH (for the last
 * REMEMBERED users: each env has a user of its own).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Identity } from './identity.js';

/** Stat fields the check reads. */
export interface DirMode {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** May `who` search (pass through) a directory with `st`? Root may always (pure). */
export function searchable(st: DirMode, who: Pick<Identity, 'uid' | 'gid'>): boolean {
  if (who.uid === 0) return true;
  if (st.uid === who.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === who.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/** `/a/b/c` → `/`, `/a`, `/a/b`, `/a/b/c` (pure). */
export function dirsAbove(dir: string): string[] {
  const out = ['/'];
  let at = '/';
  for (const part of path.normalize(dir).split('/').filter(Boolean)) out.push((at = path.join(at, part)));
  return out;
}

const REMEMBERED = 1000;
const remembered = new Map<string, string>();

/** `pathVar` without the entries `who` cannot search; `pathVar` itself for the agent's own user (null). */
export function usablePath(pathVar: string, who: Pick<Identity, 'uid' | 'gid'> | null): string {
  if (who === null || who.uid === 0) return pathVar;
  const key = `${who.uid}:${who.gid}:${pathVar}`;
  let usable = remembered.get(key);
  if (usable === undefined) {
    const canSearch = (dir: string) => {
      const st = statSync(dir, { throwIfNoEntry: false });
      return st === undefined || searchable(st, who);
    };
    usable = pathVar
      .split(':')
      .filter((entry) => !path.isAbsolute(entry) || dirsAbove(entry).every(canSearch))
      .join(':');
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, usable);
  }
  return usable;
}
