import { describe, expect, it } from 'vitest';
import { nextCrashCount, restartDelayMs } from './restart-policy.js';

describe('restart policy', () => {
  it('doubles from 500 ms to a 10 s cap', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000]);
  });
  it('resets after a process ran stably', () => {
    expect(nextCrashCount(4, 1000)).toBe(4);
    expect(nextCrashCount(4, 30_000)).toBe(0);
  });
});
