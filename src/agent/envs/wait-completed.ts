/**
 * A one-shot service (something depends on it with `service_completed_successfully`) is healthy
 * when it has run and exited 0. Bounded by the command's own timeout, as a migration may be long.
 */
import type { HealthTarget, HealthVerdict } from '../health/wait-healthy.js';

const POLL_MS = 50;

export async function waitCompleted(target: HealthTarget): Promise<HealthVerdict> {
  for (;;) {
    const exit = await target.exitOf();
    if (exit) {
      if (exit.code === 0) return { ok: true };
      return { ok: false, outcome: 'start_failed', message: `${target.service}: did not complete successfully (${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`})` };
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
