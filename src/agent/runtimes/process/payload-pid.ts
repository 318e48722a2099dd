/**
 * The host pid of a service started in a PID namespace (launch-argv.ts): `unshare --fork` is the
 * process the agent spawned, and the service is its only child.
 */
import { readFile } from 'node:fs/promises';

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
