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
import { controllerDirs, parseControllerMounts, parseControllerPath } from './cgroup-dir.js';

export interface MemoryCgroup {
  readonly version: 1 | 2;
  /** The cgroup's directory under its mount. */
  readonly dir: string;
}

/** cgroup mounts carrying `memory` (v1) and v2, from the text of /proc/self/mountinfo. Pure. */
export const parseCgroupMounts = (mountinfo: string) => parseControllerMounts(mountinfo, 'memory');

/** The memory cgroup path of a process from the text of /proc/<pid>/cgroup. Pure. */
export const parseMemoryCgroupPath = (text: string) => parseControllerPath(text, 'memory');

export async function memoryCgroupOf(pid: number | 'self'): Promise<MemoryCgroup | null> {
  for (const { version, dir } of await controllerDirs(pid, 'memory')) {
    // v2 in hybrid mode may not have the memory controller enabled: then it says nothing useful.
    const probe = version === 1 ? 'memory.usage_in_bytes' : 'memory.current';
    if (await readFile(path.join(dir, probe), 'utf8').then(() => true, () => false)) return { version, dir };
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
