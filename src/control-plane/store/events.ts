import type { Db } from './db.js';

export interface NewEvent {
  readonly team: string | null;
  readonly subject: string;
  readonly type: string;
  readonly data?: Record<string, unknown>;
}

/** Append one event; its id. Events are append-only; `id` is monotonic so readers page with `after`. */
export async function appendEvent(db: Db, e: NewEvent): Promise<number> {
  const rows = await db.query<{ id: number }>('insert into events (team, subject, type, data) values ($1, $2, $3, $4) returning id', [e.team, e.subject, e.type, JSON.stringify(e.data ?? {})]);
  return Number(rows[0]!.id);
}

/**
 * Append several events in one statement (so all or none, without a transaction), their ids in
 * order. One statement instead of one each: on the embedded store every statement is a round trip
 * to its one thread, which the API's reads wait behind (issue 11).
 */
export async function appendEvents(db: Db, events: readonly NewEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  const values = events.map((_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`).join(', ');
  const params = events.flatMap((e) => [e.team, e.subject, e.type, JSON.stringify(e.data ?? {})]);
  const rows = await db.query<{ id: number }>(`insert into events (team, subject, type, data) values ${values} returning id`, params);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
