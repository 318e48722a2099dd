/**
 * Where a process's cgroup for one controller lives on this machine, for cgroup v1 (a hierarchy
 * per controller) and v2 (one unified hierarchy): `/proc/self/mountinfo` gives the mounts,
 * `/proc/<pid>/cgroup` the process's path in each hierarchy. memory-cgroup.ts and
 * container-cgroup.ts read their files from the directories this yields. The parsers are pure.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export type CgroupController = 'memory' | 'cpuacct' | 'cpu' | 'pids';

export interface CgroupMount {
  readonly version: 1 | 2;
  readonly root: string;
  readonly point: string;
}

/** cgroup mounts that can answer for `controller`: v1 mounts carrying it, and v2. Pure. */
export function parseControllerMounts(mountinfo: string, controller: CgroupController): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fstype, , options] = right.split(' ');
    const root = f[3];
    const point = f[4];
    if (!root || !point) continue;
    if (fstype === 'cgroup2') out.push({ version: 2, root, point });
    else if (fstype === 'cgroup' && (options ?? '').split(',').includes(controller)) out.push({ version: 1, root, point });
  }
  return out;
}

/** A process's path for `controller` from the text of /proc/<pid>/cgroup: v1 first, else v2 `0::`. Pure. */
export function parseControllerPath(text: string, controller: CgroupController): { version: 1 | 2; path: string } | null {
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[2]!.split(',').includes(controller)) return { version: 1, path: m[3]! };
    if (m[1] === '0' && m[2] === '') v2 = m[3]!;
  }
  return v2 === null ? null : { version: 2, path: v2 };
}

/** Mounts are read once per controller: they do not change while the agent runs. */
const mounts = new Map<CgroupController, Promise<CgroupMount[]>>();

/** The mounts that can answer for `controller` on this machine (read once). */
export function controllerMounts(controller: CgroupController): Promise<CgroupMount[]> {
  let known = mounts.get(controller);
  if (!known) {
    known = readFile('/proc/self/mountinfo', 'utf8').then((t) => parseControllerMounts(t, controller), () => []);
    mounts.set(controller, known);
  }
  return known;
}

/** The directories that may hold `pid`'s cgroup for `controller`, best first (callers probe a file). */
export async function controllerDirs(pid: number | 'self', controller: CgroupController): Promise<{ version: 1 | 2; dir: string }[]> {
  const known = controllerMounts(controller);
  const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => null);
  const where = text === null ? null : parseControllerPath(text, controller);
  if (!where) return [];
  const dirs: { version: 1 | 2; dir: string }[] = [];
  for (const m of await known) {
    if (m.version !== where.version) continue;
    if (m.root !== '/' && !where.path.startsWith(m.root)) continue;
    dirs.push({ version: where.version, dir: path.join(m.point, m.root === '/' ? where.path : where.path.slice(m.root.length)) });
  }
  return dirs;
}
