import { describe, expect, it } from 'vitest';
import { StreamHub } from './stream-hub.js';

describe('StreamHub', () => {
  it('feeds every stream of one key from a single poll, coalescing wake-ups', async () => {
    const hub = new StreamHub({ perToken: 1000 });
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const got: number[] = [];
    const spec = {
      everyMs: 60_000,
      fetcher: () => async () => {
        fetches++;
        await gate;
        return fetches;
      },
    };
    const watches = Array.from({ length: 50 }, (_, i) => hub.watch(`env:1`, spec, () => got.push(i)));
    for (const w of watches) w.kick();
    expect(hub.pollers).toBe(1);
    release();
    await new Promise<void>((resolve) => {
      const check = () => (got.length >= 100 ? resolve() : setImmediate(check));
      check();
    });
    // one fetch in flight when the 50 subscribed, and one more for every wake-up during it
    expect(fetches).toBe(2);
    for (const w of watches) w.close();
    expect(hub.pollers).toBe(0);
  });

  it('caps open streams per token and gives a slot back once', () => {
    const hub = new StreamHub({ perToken: 2 });
    const r1 = hub.admit('tok_a');
    hub.admit('tok_a');
    expect(() => hub.admit('tok_a')).toThrow(/already has 2 event streams open/);
    expect(() => hub.admit('tok_b')).not.toThrow();
    r1();
    r1();
    expect(hub.openStreams('tok_a')).toBe(1);
    expect(() => hub.admit('tok_a')).not.toThrow();
  });
});
