/**
 * A detached process keeps the CPU priority of the process that started it.
 *
 * Why this is needed: a process started `detached` runs `setsid()`, and where the kernel groups
 * processes by session for scheduling (autogroup, sched(7); on in Debian's kernels whenever a
 * process is in the root CPU cgroup) the new session gets a scheduling group of its own at nice 0,
 * whatever the nice of its starter. Each such group gets as much CPU as the starter's whole
 * session: thirty services starting at once took thirty shares to one for the agent and the
 * control plane beside it, and `nice -n 10 denv agent` meant nothing for what the agent started
 * (bench/load.mjs, agent at nice 10: the API's read p99 during 30 concurrent deploys 34–43 ms
 * without this, 19–29 ms with it; docs/architecture.md).
 *
 * So right after the start, the new session's group is given `sessionNiceOf()`: the greater of the
 * starter's own nice and its session group's, or 19 (the least a group can have) when the starter
 * runs in SCHED_IDLE, a class a group cannot have. The process's own nice is inherited already.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { getPriority } from 'node:os';

/** SCHED_IDLE in /proc/<pid>/stat's `policy` field (sched.h). */
const SCHED_IDLE = 5;
/** The least priority a nice value says. */
export const LOWEST_NICE = 19;
/** Without CAP_SYS_ADMIN the kernel takes one autogroup change per 100 ms (EAGAIN meanwhile). */
const RETRY_MS = 110;
const ATTEMPTS = 10;

export interface StarterPriority {
  /** The starting thread's nice (getpriority). */
  readonly nice: number;
  /** Its scheduling policy (/proc/self/stat field 41). */
  readonly policy: number;
  /** Its session group's nice (/proc/self/autogroup), or null without autogroups. */
  readonly groupNice: number | null;
}

/** The nice a new session's group gets so it takes no more CPU than its starter would (pure). */
export function sessionNiceOf(p: StarterPriority): number {
  if (p.policy === SCHED_IDLE) return LOWEST_NICE;
  return Math.max(p.nice, p.groupNice ?? p.nice);
}

/** `/autogroup-42 nice 10` → 10; null for anything else. */
export function parseAutogroup(text: string): number | null {
  const m = /^\/autogroup-\d+ nice (-?\d+)\s*$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** This process's priority, read now (an operator may renice a running agent). */
export async function starterPriority(): Promise<StarterPriority> {
  const stat = await readFile('/proc/self/stat', 'utf8').catch(() => '');
  // Fields after the command (which may hold spaces): state is field 3, policy field 41.
  const policy = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[38] ?? 0);
  const group = await readFile('/proc/self/autogroup', 'utf8').catch(() => null);
  return { nice: getPriority(), policy: Number.isFinite(policy) ? policy : 0, groupNice: group === null ? null : parseAutogroup(group) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes the kernel refused for its rate limit, retried one at a time, RETRY_MS apart. */
let rateLimited: Promise<unknown> = Promise.resolve();

/** One write of the group's nice: null when done (or nothing to do), else the error code. */
async function setGroupNice(pid: number, nice: number): Promise<string | null> {
  try {
    await writeFile(`/proc/${pid}/autogroup`, String(nice));
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return code === 'ENOENT' ? null : code; // ENOENT: no autogroups in this kernel, or the process has ended
  }
}

/**
 * Give the session `pid` leads the nice its starter's priority says. The first write is made at
 * once; one the kernel's rate limit refuses (EAGAIN, only without CAP_SYS_ADMIN) is queued behind
 * the others so refused, not retried by all at once. Resolves with null when done or nothing was
 * needed (nice 0, or a kernel without autogroups), else with why it could not be set (the process
 * runs on, at nice 0 in its group); never rejects.
 */
export async function keepStarterPriority(pid: number): Promise<string | null> {
  const nice = sessionNiceOf(await starterPriority().catch(() => ({ nice: 0, policy: 0, groupNice: null })));
  if (nice === 0) return null;
  let code = await setGroupNice(pid, nice);
  for (let attempt = 1; code === 'EAGAIN' && attempt < ATTEMPTS; attempt++) {
    const turn = rateLimited.then(() => sleep(RETRY_MS)).then(() => setGroupNice(pid, nice));
    rateLimited = turn;
    code = await turn;
  }
  return code === null ? null : `cannot set the scheduling group of process ${pid} to nice ${nice}: ${code}`;
}
