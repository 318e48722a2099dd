/**
 * The memory cgroup a process is charged to, and what it says: usage, limit, and how many of its
 * processes the kernel's OOM killer has killed. Works with cgroup v1 (the `memory` controller's
 * hierarchy: memory.usage_in_bytes, memory.limit_in_bytes, memory.oom_control) and v2
 * (memory.current, memory.max, memory.events). Used for the memory limit in metric samples and to
 * tell an OOM kill from any other SIGKILL (exit-reasons.ts). Docker containers and systemd units
 * each have their own cgroup; a process service shares the agent's unless something put it in
 * another one.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface MemoryCgroup {
  readonly version: 1 | 2;
  /** The cgroup's directory under its mount. */
  readonly dir: string;
}

interface Mount {
  readonly version: 1 | 2;
  readonly root: string;
  readonly point: string;
}

/** cgroup mounts from the text of /proc/self/mountinfo: v1 mounts carrying `memory`, and v2. Pure. */
export function parseCgroupMounts(mountinfo: string): Mount[] {
  const out: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fstype, , options] = right.split(' ');
    const root = f[3];
    const point = f[4];
    if (!root || !point) continue;
    if (fstype === 'cgroup2') out.push({ version: 2, root, point });
    else if (fstype === 'cgroup' && (options ?? '').split(',').includes('memory')) out.push({ version: 1, root, point });
  }
  return out;
}

/** The memory cgroup path of a process from the text of /proc/<pid>/cgroup: v1 `memory` first, else v2 `0::`. Pure. */
export function parseMemoryCgroupPath(text: string): { version: 1 | 2; path: string } | null {
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[2]!.split(',').includes('memory')) return { version: 1, path: m[3]! };
    if (m[1] === '0' && m[2] === '') v2 = m[3]!;
  }
  return v2 === null ? null : { version: 2, path: v2 };
}

let mounts: Promise<Mount[]> | null = null;

export async function memoryCgroupOf(pid: number | 'self'): Promise<MemoryCgroup | null> {
  mounts ??= readFile('/proc/self/mountinfo', 'utf8').then(parseCgroupMounts, () => []);
  const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => null);
  const where = text === null ? null : parseMemoryCgroupPath(text);
  if (!where) return null;
  for (const m of await mounts) {
    if (m.version !== where.version) continue;
    if (m.root !== '/' && !where.path.startsWith(m.root)) continue;
    const dir = path.join(m.point, m.root === '/' ? where.path : where.path.slice(m.root.length));
    // v2 in hybrid mode may not have the memory controller enabled: then it says nothing useful.
    const probe = where.version === 1 ? 'memory.usage_in_bytes' : 'memory.current';
    if (await readFile(path.join(dir, probe), 'utf8').then(() => true, () => false)) return { version: where.version, dir };
  }
  return null;
}

const readNumber = async (file: string): Promise<number | null> => {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : null;
};

/** Values at or above this (v1's "no limit" is 2^63 rounded to pages) mean no limit. */
const NO_LIMIT = 2 ** 60;

export async function memoryLimit(cg: MemoryCgroup): Promise<number | null> {
  const n = await readNumber(path.join(cg.dir, cg.version === 1 ? 'memory.limit_in_bytes' : 'memory.max')); // v2 'max' reads as NaN → null
  return n === null || n >= NO_LIMIT ? null : n;
}

export async function memoryUsage(cg: MemoryCgroup): Promise<number | null> {
  return readNumber(path.join(cg.dir, cg.version === 1 ? 'memory.usage_in_bytes' : 'memory.current'));
}

/** How many processes of the cgroup the OOM killer has killed (kernel ≥ 4.13); null when not told. */
export async function oomKills(cg: MemoryCgroup): Promise<number | null> {
  const text = await readFile(path.join(cg.dir, cg.version === 1 ? 'memory.oom_control' : 'memory.events'), 'utf8').catch(() => null);
  const m = text === null ? null : /^oom_kill (\d+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}

/** The machine-wide OOM kill count (/proc/vmstat `oom_kill`), for processes without a cgroup of their own. */
export async function systemOomKills(): Promise<number | null> {
  const text = await readFile('/proc/vmstat', 'utf8').catch(() => null);
  const m = text === null ? null : /^oom_kill (\d+)$/m.exec(text);
  return m ? Number(m[1]) : null;
}
