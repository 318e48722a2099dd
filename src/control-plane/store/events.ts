import type { Db } from './db.js';

/** Append one event; its id. Events are append-only; `id` is monotonic so readers page with `after`. */
export async function appendEvent(db: Db, e: { team: string | null; subject: string; type: string; data?: Record<string, unknown> }): Promise<number> {
  const rows = await db.query<{ id: number }>('insert into events (team, subject, type, data) values ($1, $2, $3, $4) returning id', [e.team, e.subject, e.type, JSON.stringify(e.data ?? {})]);
  return Number(rows[0]!.id);
}

/**
 * Append a deployment's event (`deployment.started`, `deployment.finished`) to both its env's and
 * its own subject, in one statement: both or neither without a transaction, and one round trip —
 * on the embedded store every statement is one to its one thread, which the API's reads wait
 * behind (issue 11).
 */
export async function appendDeploymentEvent(db: Db, dep: { readonly team: string; readonly env: string; readonly id: string }, type: string, data: Record<string, unknown>): Promise<void> {
  const json = JSON.stringify(data);
  await db.query('insert into events (team, subject, type, data) values ($1, $2, $4, $5), ($1, $3, $4, $5)', [dep.team, `env:${dep.env}`, `dep:${dep.id}`, type, json]);
}
