/**
 * When a supervised service that had been healthy dies, it is restarted after a backoff that
 * doubles with each consecutive crash: 0.5 s, 1 s, 2 s … capped at 10 s. A process that ran for
 * `STABLE_AFTER_MS` before crashing counts as a fresh start (the backoff resets). Pure.
 */
export const STABLE_AFTER_MS = 30_000;

export function restartDelayMs(consecutiveCrashes: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(consecutiveCrashes, 5));
}

/** The crash count to use for this death, given the previous count and how long the process lived. */
export function nextCrashCount(previous: number, livedMs: number): number {
  return livedMs >= STABLE_AFTER_MS ? 0 : previous;
}
