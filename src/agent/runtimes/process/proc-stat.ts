/**
 * Process identity from `/proc/<pid>/stat`. A pid alone is not an identity (pids are reused), so
 * the agent records a process's start time (field 22, clock ticks since boot) next to its pid and
 * only treats a process as "ours" when both match. Linux only; elsewhere `readProcStat` gives
 * null and liveness falls back to `kill(pid, 0)` without the reuse check.
 */
import { readFile } from 'node:fs/promises';

export interface ProcStat {
  /** One letter: R running, S sleeping, T stopped, Z zombie, … */
  readonly state: string;
  /** Field 22: when the process started, in clock ticks since boot. */
  readonly startTime: number;
}

/**
 * Parse the text of `/proc/<pid>/stat`. Field 2 (`comm`) is parenthesised and may contain spaces
 * and parentheses itself, so fields are counted from the *last* `)`.
 */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const state = rest[0];
  const startTime = Number(rest[22 - 3]);
  if (!state || !Number.isFinite(startTime)) return null;
  return { state, startTime };
}

export async function readProcStat(pid: number): Promise<ProcStat | null> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

function signalZeroAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `pid` is a live (not zombie) process started at `startTime`. With `startTime` null
 * (it could not be read when the process was spawned) only liveness is checked.
 */
export async function isSameProcessAlive(pid: number, startTime: number | null): Promise<boolean> {
  if (process.platform !== 'linux') return signalZeroAlive(pid);
  const stat = await readProcStat(pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === null || stat.startTime === startTime;
}

/** Send `signal` to the process group led by `pid`; false when no such group exists any more. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Send `signal` to the one process `pid`; false when it is gone. */
export function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}
