import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NonceStore } from './nonce-store.js';

describe('NonceStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'denv-nonces-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('takes a nonce named %s once, then refuses it as a replay (across a reopen)', async (nonce) => {
    const until = new Date(Date.now() + 60_000).toISOString();
    const store = new NonceStore(dir);
    expect(await store.seen(nonce)).toBe(false);
    expect(await store.consume(nonce, until)).toBe(true);
    expect(await store.seen(nonce)).toBe(true);
    expect(await store.consume(nonce, until)).toBe(false);
    expect(await new NonceStore(dir).consume(nonce, until)).toBe(false);
  });
});
