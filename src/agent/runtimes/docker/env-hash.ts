/**
 * A keyed hash of a service's environment, so "same env" can be decided (idempotency) and shown
 * (evidence, the last-good record) without the values: HMAC-SHA-256 under a random per-host key
 * (`<dataDir>/envelopes/env-hash.key`, mode 0600). A plain SHA-256 of a short secret could be
 * brute-forced from evidence; the keyed hash cannot be without the host's key.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Canonical form: keys sorted, JSON of [key, value] pairs (pure). */
export function canonicalEnv(env: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.keys(env).sort().map((k) => [k, env[k]]));
}

export class EnvHasher {
  private constructor(private readonly key: Buffer) {}

  /** Load the host's key, creating it on first use (O_EXCL: two processes racing agree on one key). */
  static async open(dataDir: string): Promise<EnvHasher> {
    const file = path.join(dataDir, 'envelopes', 'env-hash.key');
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(randomBytes(32).toString('hex'));
      } finally {
        await handle.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let hex = '';
    for (let i = 0; i < 50 && hex.length !== 64; i++) {
      hex = (await readFile(file, 'utf8')).trim();
      if (hex.length !== 64) await new Promise((r) => setTimeout(r, 10)); // the creator is still writing
    }
    return new EnvHasher(Buffer.from(hex, 'hex'));
  }

  /** `hmac-sha256:<hex>` of the canonical env. */
  hash(env: Readonly<Record<string, string>>): string {
    return `hmac-sha256:${createHmac('sha256', this.key).update(canonicalEnv(env)).digest('hex')}`;
  }
}
