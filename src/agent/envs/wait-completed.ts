/**
 * A one-shot service (something depends on it with `service_completed_successfully`) is healthy
 * when it has run and exited 0. Bounded (default 15 min, the command timeout: a migration may be
 * long) so a hung one never holds its env's lock for ever; the caller stops it on failure.
 */
import type { HealthTarget, HealthVerdict } from '../health/wait-healthy.js';

const POLL_MS = 50;
export const ONE_SHOT_TIMEOUT_MS = 15 * 60_000;

export async function waitCompleted(target: HealthTarget, timeoutMs = ONE_SHOT_TIMEOUT_MS): Promise<HealthVerdict> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (Date.now() > deadline) return { ok: false, outcome: 'start_failed', message: `${target.service}: did not complete within ${Math.round(timeoutMs / 1000)} s` };
    const exit = await target.exitOf();
    if (exit) {
      if (exit.code === 0) return { ok: true };
      return { ok: false, outcome: 'start_failed', message: `${target.service}: did not complete successfully (${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`})` };
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
