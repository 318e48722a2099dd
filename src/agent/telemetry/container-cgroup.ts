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
import { controllerDirs } from './cgroup-dir.js';
import { memoryCgroupOf, memoryLimit, memoryUsage } from './memory-cgroup.js';

/** Inactive file cache from a memory.stat text (v1 `total_inactive_file`, v2 `inactive_file`); 0 when absent. Pure. */
export function inactiveFileBytes(memoryStat: string): number {
  const m = /^(?:total_inactive_file|inactive_file) (\d+)$/m.exec(memoryStat);
  return m ? Number(m[1]) : 0;
}

/** Cumulative CPU time of the cgroup of `pid`, in nanoseconds; null when it cannot be read. */
export async function cgroupCpuNanos(pid: number): Promise<number | null> {
  for (const { version, dir } of await controllerDirs(pid, 'cpuacct')) {
    if (version === 1) {
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
