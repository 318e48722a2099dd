/**
 * CPU and memory of a docker container, read from its own cgroup (seed 002: "from the container's
 * cgroup for docker"). The cgroup is found from the container's init pid (`/proc/<pid>/cgroup`),
 * so it is the one the kernel charges, whatever cgroup driver docker uses.
 *
 *   memory  memory-cgroup.ts (v1 `memory` controller or v2): usage minus inactive file cache (what
 *           `docker stats` shows), the limit, the OOM-kill count
 *   CPU     v1 `cpuacct.usage` (ns), v2 `cpu.stat` `usage_usec`: the whole container, every process
 *
 * Without a CPU cgroup (none mounted), CPU is null. The parsers are pure.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { memoryCgroupOf, memoryLimit, memoryUsage } from './memory-cgroup.js';

interface CpuMount {
  readonly version: 1 | 2;
  readonly root: string;
  readonly point: string;
}

/** Mounts that can answer CPU usage, from /proc/self/mountinfo: v1 `cpuacct`, and v2. Pure. */
export function parseCpuMounts(mountinfo: string): CpuMount[] {
  const out: CpuMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fstype, , options] = right.split(' ');
    const root = f[3];
    const point = f[4];
    if (!root || !point) continue;
    if (fstype === 'cgroup2') out.push({ version: 2, root, point });
    else if (fstype === 'cgroup' && (options ?? '').split(',').includes('cpuacct')) out.push({ version: 1, root, point });
  }
  return out;
}

/** The CPU-accounting cgroup path from /proc/<pid>/cgroup: v1 `cpuacct` first, else v2 `0::`. Pure. */
export function parseCpuCgroupPath(text: string): { version: 1 | 2; path: string } | null {
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[2]!.split(',').includes('cpuacct')) return { version: 1, path: m[3]! };
    if (m[1] === '0' && m[2] === '') v2 = m[3]!;
  }
  return v2 === null ? null : { version: 2, path: v2 };
}

/** Inactive file cache from a memory.stat text (v1 `total_inactive_file`, v2 `inactive_file`); 0 when absent. Pure. */
export function inactiveFileBytes(memoryStat: string): number {
  const m = /^(?:total_inactive_file|inactive_file) (\d+)$/m.exec(memoryStat);
  return m ? Number(m[1]) : 0;
}

let cpuMounts: Promise<CpuMount[]> | null = null;

/** Cumulative CPU time of the cgroup of `pid`, in nanoseconds; null when it cannot be read. */
export async function cgroupCpuNanos(pid: number): Promise<number | null> {
  cpuMounts ??= readFile('/proc/self/mountinfo', 'utf8').then(parseCpuMounts, () => []);
  const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => null);
  const where = text === null ? null : parseCpuCgroupPath(text);
  if (!where) return null;
  for (const m of await cpuMounts) {
    if (m.version !== where.version) continue;
    if (m.root !== '/' && !where.path.startsWith(m.root)) continue;
    const dir = path.join(m.point, m.root === '/' ? where.path : where.path.slice(m.root.length));
    if (where.version === 1) {
      const n = Number((await readFile(path.join(dir, 'cpuacct.usage'), 'utf8').catch(() => '')).trim());
      if (Number.isFinite(n) && n > 0) return n;
    } else {
      const stat = await readFile(path.join(dir, 'cpu.stat'), 'utf8').catch(() => '');
      const u = /^usage_usec (\d+)$/m.exec(stat);
      if (u) return Number(u[1]) * 1000;
    }
  }
  return null;
}

export interface ContainerUsage {
  /** Cumulative CPU time, ns (null: no CPU cgroup readable). */
  readonly cpuNanos: number | null;
  readonly memBytes: number | null;
  readonly memLimitBytes: number | null;
}

/** One reading of the container whose init process is `pid`. */
export async function containerUsage(pid: number): Promise<ContainerUsage> {
  const [cpuNanos, cg] = await Promise.all([cgroupCpuNanos(pid), memoryCgroupOf(pid)]);
  if (!cg) return { cpuNanos, memBytes: null, memLimitBytes: null };
  const [usage, limit, stat] = await Promise.all([memoryUsage(cg), memoryLimit(cg), readFile(path.join(cg.dir, 'memory.stat'), 'utf8').catch(() => '')]);
  return { cpuNanos, memBytes: usage === null ? null : Math.max(0, usage - inactiveFileBytes(stat)), memLimitBytes: limit };
}

/** Percent of one core over an interval. Pure. */
export function cpuPercentFromNanos(prevNanos: number, nanos: number, elapsedMs: number): number | null {
  if (elapsedMs <= 0 || nanos < prevNanos) return null;
  return Math.round(((nanos - prevNanos) / (elapsedMs * 1e6)) * 1000) / 10;
}
