import { describe, expect, it } from 'vitest';
import { isSameProcessAlive, parseProcStat, readProcStat } from './proc-stat.js';

describe('parseProcStat', () => {
  it('reads state and field 22 even when comm holds spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[22 - 3] = '123456';
    expect(parseProcStat(`42 (a) b (c)) ${fields.join(' ')}`)).toEqual({ state: 'S', startTime: 123456 });
    expect(parseProcStat('garbage')).toBeNull();
  });
});

describe('isSameProcessAlive', () => {
  it('matches this process by pid and start time, and not a different start time', async () => {
    const stat = await readProcStat(process.pid);
    expect(stat).not.toBeNull();
    expect(await isSameProcessAlive(process.pid, stat!.startTime)).toBe(true);
    expect(await isSameProcessAlive(process.pid, stat!.startTime + 1)).toBe(false);
    expect(await isSameProcessAlive(4194305, null)).toBe(false);
  });
});
