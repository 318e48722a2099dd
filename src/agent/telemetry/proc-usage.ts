/**
 * CPU and memory of process groups from `/proc` (Linux). A process service is spawned detached, so
 * it leads its own process group (pgid = its pid) and whatever it forks stays in that group: the
 * service's usage is the sum over the group's processes. One pass over `/proc/<pid>/stat` serves
 * every service at once.
 *
 * CPU time is in clock ticks: USER_HZ, which Linux fixes at 100 for user space whatever the
 * kernel's HZ. The page size is derived once from /proc/self (statm pages vs status VmRSS), not
 * assumed.
 */
import { readdir, readFile } from 'node:fs/promises';

export const CLOCK_TICKS_PER_S = 100;

export interface GroupUsage {
  /** utime + stime of every process of the group, in clock ticks. */
  readonly cpuTicks: number;
  /** Resident pages of every process of the group. */
  readonly rssPages: number;
  readonly processes: number;
}

export interface StatFields {
  readonly pid: number;
  readonly pgrp: number;
  readonly ticks: number;
  readonly rssPages: number;
}

/** The fields we need from the text of `/proc/<pid>/stat` (counted from the last `)`: comm may hold anything). */
export function parseStatFields(text: string): StatFields | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < 0) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3, so field N is rest[N - 3]: pgrp 5, utime 14, stime 15, rss 24.
  const pgrp = Number(rest[2]);
  const ticks = Number(rest[11]) + Number(rest[12]);
  const rssPages = Number(rest[21]);
  if (![pid, pgrp, ticks, rssPages].every(Number.isFinite)) return null;
  return { pid, pgrp, ticks, rssPages };
}

/** Usage of each wanted process group; a group with no live process is absent. */
export async function readGroupUsage(pgids: ReadonlySet<number>): Promise<Map<number, GroupUsage>> {
  const out = new Map<number, GroupUsage>();
  if (pgids.size === 0 || process.platform !== 'linux') return out;
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e) => {
        const text = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => null);
        const f = text === null ? null : parseStatFields(text);
        if (!f || !pgids.has(f.pgrp)) return;
        const prev = out.get(f.pgrp);
        out.set(f.pgrp, { cpuTicks: (prev?.cpuTicks ?? 0) + f.ticks, rssPages: (prev?.rssPages ?? 0) + f.rssPages, processes: (prev?.processes ?? 0) + 1 });
      }),
  );
  return out;
}

let pageSize: number | null = null;

/** Bytes per page: VmRSS (kB) of this process over its resident pages; 4096 when it cannot be told. */
export async function pageSizeBytes(): Promise<number> {
  if (pageSize !== null) return pageSize;
  pageSize = 4096;
  try {
    const [statm, status] = await Promise.all([readFile('/proc/self/statm', 'utf8'), readFile('/proc/self/status', 'utf8')]);
    const pages = Number(statm.split(/\s+/)[1]);
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
    if (pages > 0 && kb > 0) {
      const guess = (kb * 1024) / pages;
      // Round to the nearest power of two (the two reads are not atomic).
      pageSize = 2 ** Math.round(Math.log2(guess));
    }
  } catch {
    /* not Linux */
  }
  return pageSize;
}

/** Percent of one core used between two readings of a group's CPU ticks. */
export function cpuPercent(prevTicks: number, ticks: number, elapsedMs: number): number | null {
  if (elapsedMs <= 0 || ticks < prevTicks) return null;
  return Math.round((((ticks - prevTicks) / CLOCK_TICKS_PER_S) * 1000 * 100 * 10) / elapsedMs) / 10;
}
