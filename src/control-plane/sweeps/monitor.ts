/**
 * The monitor sweep (seed 002 "Health staleness"): while an env is live, the agent's live status
 * keeps it honest — a workload reporting fewer ready than desired flips `running` → `degraded`,
 * and all ready again flips it back. Each flip is an event `status_changed` on `env:<id>`.
 * Only a status received after the env's last change counts: one pushed while a deploy was still
 * starting its new version says nothing about the env once it runs.
 * It also files each open incident as an improvement request (telemetry/file-incidents.ts).
 */
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { fileIncidents } from '../telemetry/file-incidents.js';

const NOT_READY = `exists (select 1 from jsonb_array_elements(live_status->'workloads') w where (w->>'ready')::int < (w->>'desired')::int)`;

export async function sweepMonitor(db: Db): Promise<number> {
  const flipped = await db.query<{ id: string; team: string; status: string; live_status: { workloads: { service: string; ready: number; detail?: string }[] } }>(
    `update envs set status = case status when 'running' then 'degraded' else 'running' end, updated_at = now()
     where live_status is not null and (live_status->>'received_at')::timestamptz > updated_at and ((status = 'running' and ${NOT_READY}) or (status = 'degraded' and not ${NOT_READY}))
     returning id, team, status, live_status`,
  );
  for (const env of flipped) {
    const notReady = env.live_status.workloads.filter((w) => w.ready < 1).map((w) => `${w.service}: ${w.detail ?? 'not ready'}`);
    await appendEvent(db, {
      team: env.team, subject: `env:${env.id}`, type: 'status_changed',
      data: { from: env.status === 'degraded' ? 'running' : 'degraded', to: env.status, reason: notReady.length > 0 ? notReady.join('; ') : 'all workloads ready' },
    });
  }
  return flipped.length + (await fileIncidents(db));
}
