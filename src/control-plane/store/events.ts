import type { Db } from './db.js';

/** Append one event; its id. Events are append-only; `id` is monotonic so readers page with `after`. */
export async function appendEvent(db: Db, e: { team: string | null; subject: string; type: string; data?: Record<string, unknown> }): Promise<number> {
  const rows = await db.query<{ id: number }>('insert into events (team, subject, type, data) values ($1, $2, $3, $4) returning id', [e.team, e.subject, e.type, JSON.stringify(e.data ?? {})]);
  return Number(rows[0]!.id);
}
