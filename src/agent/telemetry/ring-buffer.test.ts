import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.js';

describe('RingBuffer', () => {
  it('keeps the newest items up to its capacity, oldest first', () => {
    const r = new RingBuffer<number>(3);
    for (let i = 1; i <= 5; i++) r.push(i);
    expect(r.size).toBe(3);
    expect(r.toArray()).toEqual([3, 4, 5]);
    expect(r.last(2)).toEqual([4, 5]);
    expect(r.last(10)).toEqual([3, 4, 5]);
  });

  it('never holds more than its capacity (200 log lines) however much is pushed', () => {
    const r = new RingBuffer<string>(200);
    for (let i = 0; i < 10_000; i++) {
      r.push(`line ${i}`);
      if (r.size > 200) throw new Error(`size ${r.size} after ${i + 1} pushes`);
    }
    expect(r.toArray()[0]).toBe('line 9800');
    expect(r.toArray()[199]).toBe('line 9999');
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(/positive integer/);
  });
});
