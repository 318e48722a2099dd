/**
 * Commands an agent restart cut short (CommandStore.interrupted), looked at once at start-up,
 * before the link connects. The run itself is resumed when the control plane delivers the id
 * again (it re-sends every open command when the host reconnects); here the agent only undoes
 * what must not outlive a run even if that never happens:
 *
 *   env.snapshot   its services were paused (SIGSTOP) for the copy: they run again. A service
 *                  held paused on purpose (verify) stays paused (ProcessRuntime.resume skips it).
 */
import type { ProcessRuntime } from '../runtimes/process/process-runtime.js';
import type { InterruptedCommand } from './command-store.js';

export function recoverInterrupted(interrupted: readonly InterruptedCommand[], runtime: ProcessRuntime, log: (line: string) => void): void {
  for (const c of interrupted) {
    log(`command ${c.id} ${c.kind} was cut short by a restart${c.started_at ? ` (started ${c.started_at})` : ''}; it resumes when the control plane sends it again`);
    if (c.kind === 'env.snapshot' && c.env) {
      runtime.resume(c.env);
      log(`env ${c.env}: services paused by the interrupted snapshot run again`);
    }
  }
}
