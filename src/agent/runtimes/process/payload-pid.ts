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
