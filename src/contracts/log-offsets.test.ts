import { describe, expect, it } from 'vitest';
import { contentOffsets } from './log-offsets.js';

describe('contentOffsets', () => {
  it('gives a line read again the same offset, and repeated lines offsets of their own', () => {
    const first = contentOffsets(['a', 'b', 'a']);
    const again = contentOffsets(['b', 'a', 'a', 'c']);
    expect(new Set(first).size).toBe(3);
    expect(again.slice(0, 3).sort()).toEqual([...first].sort());
    for (const o of [...first, ...again]) expect(Number.isSafeInteger(o) && o >= 0).toBe(true);
  });
});
