/**
 * Host status from heartbeat age (seed 002): `connected`, then `degraded` after `degradedAfterMs`
 * without a heartbeat, `disconnected` after `disconnectedAfterMs`. A heartbeat (or a new hello)
 * sets `connected` again. Each change is an event on `host:<id>`.
 */
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';

export async function sweepHostHealth(db: Db, t: { degradedAfterMs: number; disconnectedAfterMs: number }): Promise<number> {
  const changed = await db.query<{ id: string; team: string; status: string }>(
    `update hosts h set status = n.status from (
       select id, case
         when last_heartbeat_at < now() - ($2 || ' milliseconds')::interval then 'disconnected'
         when last_heartbeat_at < now() - ($1 || ' milliseconds')::interval then 'degraded'
         else 'connected' end as status
       from hosts where status in ('connected', 'degraded', 'disconnected')) n
     where h.id = n.id and h.status <> n.status
     returning h.id, h.team, h.status`,
    [String(t.degradedAfterMs), String(t.disconnectedAfterMs)],
  );
  for (const h of changed) await appendEvent(db, { team: h.team, subject: `host:${h.id}`, type: 'host.status', data: { status: h.status } });
  return changed.length;
}
