/**
 * The monitor sweep (seed 002 "Health staleness"): while an env is live, the agent's live status
 * keeps it honest — a workload reporting fewer ready than desired flips `running` → `degraded`,
 * and all ready again flips it back. Each flip is an event `status_changed` on `env:<id>`.
 * Only a status received after the env's last change counts: one pushed while a deploy was still
 * starting its new version says nothing about the env once it runs.
 * It also files each open incident as an improvement request (telemetry/file-incidents.ts).
 */
import type { Db } from '../store/db.js';
import { fileIncidents } from '../telemetry/file-incidents.js';

const NOT_READY = `exists (select 1 from jsonb_array_elements(live_status->'workloads') w where (w->>'ready')::int < (w->>'desired')::int)`;

/** Why an env is degraded (its workloads not ready, with their detail), or that all are ready: SQL over `live_status`. */
const REASON = `coalesce((select string_agg((w->>'service') || ': ' || coalesce(w->>'detail', 'not ready'), '; ')
  from jsonb_array_elements(live_status->'workloads') w where (w->>'ready')::int < 1), 'all workloads ready')`;

export async function sweepMonitor(db: Db): Promise<number> {
  // Each flip and its event in one statement: whoever reads the new status reads its event too
  // (and no transaction holds the embedded database's connection on every pass).
  const flipped = await db.query<{ id: number }>(
    `with flipped as (
       update envs set status = case status when 'running' then 'degraded' else 'running' end, updated_at = now()
        where live_status is not null and (live_status->>'received_at')::timestamptz > updated_at and ((status = 'running' and ${NOT_READY}) or (status = 'degraded' and not ${NOT_READY}))
        returning id, team, status, ${REASON} as reason)
     insert into events (team, subject, type, data)
     select team, 'env:' || id, 'status_changed', jsonb_build_object('from', case status when 'degraded' then 'running' else 'degraded' end, 'to', status, 'reason', reason) from flipped
     returning id`,
  );
  return flipped.length + (await fileIncidents(db));
}
