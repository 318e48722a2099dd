import type { Db } from './db.js';

/**
 * Close every command of a finished deployment the agent has not answered: nothing waits for it
 * any more, so it must not be re-sent when its host reconnects (a stale env.create would start a
 * version the deployment gave up on beside the one serving). A late result for it is acknowledged
 * and ignored. Returns how many were closed.
 */
export async function abandonOpenCommands(db: Db, deployment: string, status: string): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `update commands set status = 'error', error = $2, finished_at = now()
     where deployment = $1 and status in ('pending', 'sent') returning id`,
    [deployment, JSON.stringify({ code: 'ABANDONED', message: `the deployment ended ${status} before the agent answered` })],
  );
  return rows.length;
}
