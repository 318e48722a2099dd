import { describe, expect, it } from 'vitest';
import { LineSplitter } from './log-lines.js';

const b = (s: string) => Buffer.from(s);

describe('LineSplitter', () => {
  it('yields complete lines with their file offsets across chunks', () => {
    const s = new LineSplitter();
    expect(s.push(b('one\ntw'), 0)).toEqual([{ offset: 0, text: 'one' }]);
    expect(s.push(b('o\r\nthree\n'), 6)).toEqual([{ offset: 4, text: 'two' }, { offset: 9, text: 'three' }]);
    expect(s.push(b('\n'), 15)).toEqual([{ offset: 15, text: '' }]);
  });

  it('drops a partial first line when reading starts mid-file', () => {
    const s = new LineSplitter(4000, true);
    expect(s.push(b('tail of an old line\nfresh\n'), 100)).toEqual([{ offset: 120, text: 'fresh' }]);
  });

  it('cuts an over-long line and drops its rest', () => {
    const s = new LineSplitter(5);
    expect(s.push(b('abcdefgh'), 0)).toEqual([{ offset: 0, text: 'abcde…' }]);
    expect(s.push(b('ij\nok\n'), 8)).toEqual([{ offset: 11, text: 'ok' }]);
    expect(new LineSplitter(3).push(b('abcdef\nxy\n'), 0)).toEqual([{ offset: 0, text: 'abc…' }, { offset: 7, text: 'xy' }]);
  });

  it('keeps multi-byte characters whole when a chunk splits them', () => {
    const s = new LineSplitter();
    const bytes = b('é\n');
    expect(s.push(bytes.subarray(0, 1), 0)).toEqual([]);
    expect(s.push(bytes.subarray(1), 1)).toEqual([{ offset: 0, text: 'é' }]);
  });
});
