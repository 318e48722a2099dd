/**
 * Crash points for the fault tests (test/faults/), and for nothing else. Inert unless the
 * environment variable `DENV_KILL_AT` is set: a comma-separated list of point names. A process
 * that reaches a listed point SIGKILLs itself there — nothing flushed, nothing cleaned up, as in a
 * real crash. With `DENV_KILL_ONCE_DIR` each point fires at most once across restarts (a marker
 * file per point, created before the kill), so a test can start every process with the same list
 * and walk one deployment through all of its points.
 *
 * Points:
 *   control plane  `<kind>.<phase>:start`   the phase is committed `running`, its work not begun
 *                  `<kind>.<phase>:end`     its work returned, the outcome not committed
 *                  `result:<command kind>`  an agent's result frame was read, not stored
 *                  `sent:<command kind>`    a command was written to the agent's socket, the send not recorded
 *   agent          `command:<kind>:start`   the command is recorded as running, its work not begun
 *                  `command:<kind>:end`     its work is done, the outcome not recorded
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const armed: ReadonlySet<string> = new Set(
  (process.env.DENV_KILL_AT ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** Whether any point starting with `prefix` is armed (lets a caller skip work only a point needs). */
export function killPointArmed(prefix: string): boolean {
  for (const name of armed) if (name.startsWith(prefix)) return true;
  return false;
}

/** SIGKILL this process if `name` is armed (and, with DENV_KILL_ONCE_DIR, has not fired yet). */
export function killPoint(name: string): void {
  if (!armed.has(name)) return;
  const onceDir = process.env.DENV_KILL_ONCE_DIR;
  if (onceDir) {
    try {
      writeFileSync(path.join(onceDir, encodeURIComponent(name)), `${process.pid}\n`, { flag: 'wx' });
    } catch {
      return; // fired before (or the directory is unusable: never crash twice by accident)
    }
  }
  process.stderr.write(`kill point ${name}: SIGKILL\n`);
  // POSIX: a signal a process sends itself is delivered before kill() returns.
  process.kill(process.pid, 'SIGKILL');
}
