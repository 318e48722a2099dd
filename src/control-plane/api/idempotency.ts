/**
 * `Idempotency-Key` on POSTs that start work (issue 11): a client that retries a request (a lost
 * answer, a timeout) with the same key gets the first answer instead of a second deployment. Keys
 * are per team and kept 24 h. The same key with a different request is refused (409); a retry
 * while the first request still runs waits for its answer (up to 10 s, then 409 "still running").
 * A first request that fails frees its key, so the client can try again.
 */
import { createHash } from 'node:crypto';
import { DenvError } from '../../contracts/errors.js';
import type { Db } from '../store/db.js';

const KEY = /^[\x21-\x7e]{1,200}$/;
const KEEP_FOR = "interval '24 hours'";
const WAIT_MS = 10_000;

export interface Replay {
  readonly status: number;
  readonly answer: unknown;
}

/** Run `handler` once per (team, key); a repeat answers the stored result. */
export async function idempotent(
  db: Db,
  team: string,
  key: string,
  request: { method: string; url: string; body: unknown },
  handler: () => Promise<Replay>,
): Promise<Replay & { replayed: boolean }> {
  if (!KEY.test(key)) throw new DenvError('BAD_REQUEST', 'Idempotency-Key: expected 1-200 printable characters without spaces');
  const hash = createHash('sha256').update(JSON.stringify([request.method, request.url, request.body ?? null])).digest('hex');
  await db.query(`delete from idempotency_keys where created_at < now() - ${KEEP_FOR}`);
  const claimed = await db.query('insert into idempotency_keys (team, key, request_hash) values ($1, $2, $3) on conflict do nothing returning key', [team, key, hash]);
  if (claimed.length > 0) {
    try {
      const out = await handler();
      await db.query('update idempotency_keys set status = $3, answer = $4 where team = $1 and key = $2', [team, key, out.status, JSON.stringify(out.answer)]);
      return { ...out, replayed: false };
    } catch (err) {
      await db.query('delete from idempotency_keys where team = $1 and key = $2', [team, key]).catch(() => {});
      throw err;
    }
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const [row] = await db.query<{ request_hash: string; status: number | null; answer: unknown }>('select request_hash, status, answer from idempotency_keys where team = $1 and key = $2', [team, key]);
    if (!row) throw new DenvError('CONFLICT', 'Idempotency-Key: the first request with this key failed meanwhile; send it again');
    if (row.request_hash !== hash) throw new DenvError('CONFLICT', 'Idempotency-Key: this key was used for a different request');
    if (row.status !== null) return { status: row.status, answer: typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer, replayed: true };
    if (Date.now() > deadline) throw new DenvError('CONFLICT', 'Idempotency-Key: the first request with this key is still running; retry shortly');
    await new Promise((r) => setTimeout(r, 100));
  }
}
