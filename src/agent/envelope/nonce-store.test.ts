import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { NonceStore } from './nonce-store.js';

describe('NonceStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'denv-nonces-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('takes a nonce named %s once, then refuses it as a replay (across a reopen)', async (nonce) => {
    const until = inAMinute();
    const store = new NonceStore(dir);
    expect(await store.seen(nonce)).toBe(false);
    expect(await store.consume(nonce, until)).toBe(true);
    expect(await store.seen(nonce)).toBe(true);
    expect(await store.consume(nonce, until)).toBe(false);
    expect(await new NonceStore(dir).consume(nonce, until)).toBe(false);
  });

  it('of 20 concurrent consumes of one nonce exactly one wins, through one store and through 20 (as 20 processes would)', async () => {
    const store = new NonceStore(dir);
    const one = randomUUID();
    const viaOne = await Promise.all(Array.from({ length: 20 }, () => store.consume(one, inAMinute())));
    expect(viaOne.filter((won) => won)).toHaveLength(1);
    const many = randomUUID();
    const viaMany = await Promise.all(Array.from({ length: 20 }, () => new NonceStore(dir).consume(many, inAMinute())));
    expect(viaMany.filter((won) => won)).toHaveLength(1);
    // Distinct nonces racing each other are all recorded (no write lost to another).
    const distinct = Array.from({ length: 10 }, () => randomUUID());
    expect(await Promise.all(distinct.map((n) => new NonceStore(dir).consume(n, inAMinute())))).toEqual(distinct.map(() => true));
    for (const n of [one, many, ...distinct]) expect(await store.seen(n)).toBe(true);
  });

  it('forgets a nonce once its envelope has expired: not seen, consumable again, and pruned from the record', async () => {
    const own = mkdtempSync(join(dir, 'expiry-'));
    const store = new NonceStore(own);
    const until = '2030-01-01T00:00:00.000Z';
    const at = Date.parse(until);
    expect(await store.consume('n-1', until, at - 1000)).toBe(true);
    expect(await store.consume('n-2', '2030-01-01T00:00:05.000Z', at - 1000)).toBe(true);
    expect(await store.seen('n-1', at - 1)).toBe(true);
    // At its expiry instant it is gone: the expiry check refuses the envelope from then on anyway.
    expect(await store.seen('n-1', at)).toBe(false);
    expect(await store.consume('n-3', inAMinute(), at)).toBe(true);
    const recorded = JSON.parse(readFileSync(store.file, 'utf8')).nonces as Record<string, string>;
    expect(Object.keys(recorded).sort()).toEqual(['n-2', 'n-3']);
    expect(await store.consume('n-1', '2030-01-01T00:01:00.000Z', at)).toBe(true);
    expect(await store.consume('n-2', '2030-01-01T00:01:00.000Z', at)).toBe(false);
  });

  it.each([
    ['no record at all', null],
    ['nonces: null', { nonces: null }],
    ['nonces: a string', { nonces: 'n-1' }],
    ['a value that is not a date string', { nonces: { 'n-1': 4102444800000 } }],
  ])('reads a damaged record (%s) as holding no nonce, and writes a good one', async (_what, content) => {
    const own = mkdtempSync(join(dir, 'damaged-'));
    const store = new NonceStore(own);
    if (content !== null) {
      mkdirSync(join(own, 'envelopes'), { recursive: true });
      writeFileSync(store.file, JSON.stringify(content));
    }
    expect(await store.seen('n-1')).toBe(false);
    expect(await store.consume('n-1', inAMinute())).toBe(true);
    expect(await store.seen('n-1')).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(store.file, 'utf8')).nonces)).toEqual(['n-1']);
  });
});
