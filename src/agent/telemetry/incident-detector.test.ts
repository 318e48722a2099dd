import { describe, expect, it } from 'vitest';
import { IncidentDetector } from './incident-detector.js';

describe('IncidentDetector', () => {
  it('turns 50 occurrences of one error with varying numbers into one incident counting 50', () => {
    const d = new IncidentDetector({ epoch: 'e1', threshold: 5, minIntervalMs: 1000 });
    for (let i = 0; i < 4; i++) d.observe('env_a', 'web', `ERROR payment ${i * 37} failed: code ${i}`, `2024-01-01T00:00:0${i}Z`);
    d.observe('env_a', 'web', 'GET /healthz 200', '2024-01-01T00:00:05Z');
    expect(d.due(10_000)).toEqual([]); // below the threshold
    for (let i = 4; i < 50; i++) d.observe('env_a', 'web', `ERROR payment ${i * 37} failed: code ${i}`, '2024-01-01T00:01:00Z');
    const [first, ...rest] = d.due(10_000);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ env: 'env_a', service: 'web', count: 50, epoch: 'e1', pattern: 'ERROR payment <n> failed: code <n>', sample: 'ERROR payment 1813 failed: code 49' });
    expect(d.due(20_000)).toEqual([]); // nothing new
    d.observe('env_a', 'web', 'ERROR payment 1 failed: code 2', '2024-01-01T00:02:00Z');
    expect(d.due(10_500)).toEqual([]); // too soon after the last report
    expect(d.due(21_000).map((r) => r.count)).toEqual([51]);
  });

  it('reports again what could not be sent, and keeps at most maxPatterns per env', () => {
    const d = new IncidentDetector({ epoch: 'e', threshold: 1, minIntervalMs: 0, maxPatterns: 3 });
    d.observe('e1', 'web', 'error one', 'a');
    const [r] = d.due(1);
    d.unsent(r!);
    expect(d.due(2).map((x) => x.count)).toEqual([1]);
    for (const w of ['alpha', 'beta', 'gamma', 'delta']) d.observe('e1', 'web', `error ${w}`, 'b');
    expect(d.patternCount('e1')).toBe(3);
    d.forget('e1');
    expect(d.patternCount('e1')).toBe(0);
  });
});
