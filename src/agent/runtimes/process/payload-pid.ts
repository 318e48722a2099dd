/**
 * The host pid of a service started in a PID namespace (launch-argv.ts): `unshare --fork` is the
 * process the agent spawned, and the service is its only child.
 */
import { readFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';

/** The first child of `pid` (`/proc/<pid>/task/<pid>/children`), or null when it has none or is gone. */
export async function payloadPid(pid: number): Promise<number | null> {
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    const first = text.trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

/** Whether `pid` has a handler for `signal` (`SigCgt` of /proc/<pid>/status); true when unknown. */
export async function catchesSignal(pid: number, signal: NodeJS.Signals): Promise<boolean> {
  const num = osConstants.signals[signal];
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const hex = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    return hex === undefined ? true : ((BigInt(`0x${hex}`) >> BigInt(num - 1)) & 1n) === 1n;
  } catch {
    return true;
  }
}

/** Signals whose default action is not to end the process: a handler that gave one of these up did
 *  not mean to die. */
const NOT_FATAL_BY_DEFAULT: ReadonlySet<string> = new Set(['SIGCHLD', 'SIGCONT', 'SIGURG', 'SIGWINCH', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU']);

/**
 * Whether `pid`, a PID namespace's init sent `signal` while it had a handler for it, has since given
 * the handler up and is still alive: it re-raised the signal to die by its default action, which
 * the kernel ignores for a namespace's init. Node does exactly this (it resets the terminal, then
 * re-raises SIGTERM), so a Node service writing a dataset waited out its whole grace period on
 * every stop. Such a process is ended with SIGKILL at once: it was dying anyway.
 */
export async function reRaisedIntoTheVoid(pid: number, signal: NodeJS.Signals): Promise<boolean> {
  if (NOT_FATAL_BY_DEFAULT.has(signal)) return false;
  return !(await catchesSignal(pid, signal));
}
