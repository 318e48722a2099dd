/**
 * The replay record: every nonce this host has accepted, kept until its envelope expires (after
 * that the expiry check refuses the envelope anyway, so the record stays small — at most an
 * hour of deploys). `<dataDir>/envelopes/nonces.json`, written atomically under a flock, so a
 * replay is refused across agent restarts and across processes sharing the data dir.
 *
 * `consume` is the only writer and is atomic (check and record under the lock): of two deliveries
 * of one envelope racing each other, exactly one wins.
 */
import path from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../files.js';
import { acquireFileLock } from '../locks/file-lock.js';
import { Mutex } from '../../lib/mutex.js';

interface NonceFile {
  /** nonce → expires_at (ISO). */
  readonly nonces: Record<string, string>;
}

export class NonceStore {
  readonly file: string;
  private readonly mutex = new Mutex();

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'envelopes', 'nonces.json');
  }

  /** Whether `nonce` was accepted before and has not expired. Read-only (preflight and admit). */
  async seen(nonce: string, nowMs = Date.now()): Promise<boolean> {
    const until = (await this.read()).get(nonce);
    return until !== undefined && Date.parse(until) > nowMs;
  }

  /** Record `nonce` (valid until `expiresAt`); false when it was already recorded (a replay). */
  consume(nonce: string, expiresAt: string, nowMs = Date.now()): Promise<boolean> {
    return this.mutex.run(async () => {
      const release = await acquireFileLock(`${this.file}.lock`);
      try {
        const live = new Map<string, string>();
        for (const [n, until] of await this.read()) if (Date.parse(until) > nowMs) live.set(n, until);
        if (live.has(nonce)) return false;
        live.set(nonce, expiresAt);
        await writeJsonAtomic(this.file, { nonces: Object.fromEntries(live) } satisfies NonceFile, 0o600);
        return true;
      } finally {
        await release();
      }
    });
  }

  /** A Map, never a plain object: a nonce named `constructor` or `__proto__` is just a string
   *  (as an object key it would read the prototype's member and count as a replay). */
  private async read(): Promise<Map<string, string>> {
    const file = (await readJsonOrNull(this.file)) as NonceFile | null;
    const nonces = file && typeof file.nonces === 'object' && file.nonces !== null ? file.nonces : {};
    // JSON.parse makes own properties (even `__proto__`), so Object.entries sees every nonce.
    return new Map(Object.entries(nonces).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
}
