export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
  /** 0.5 = ±50 %. */
  readonly jitter: number;
}

export const RECONNECT_BACKOFF: BackoffPolicy = { baseMs: 200, capMs: 10_000, jitter: 0.5 };

/**
 * Delay before reconnect attempt `attempt` (0 for the first retry): base·2^attempt capped at
 * `capMs`, then spread by ±jitter so a fleet of agents does not reconnect in lockstep after a
 * control-plane restart. `random` is injectable for tests.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy = RECONNECT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp * (1 + policy.jitter * (2 * random() - 1)));
}
