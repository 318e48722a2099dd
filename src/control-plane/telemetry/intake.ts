/**
 * What the gateway does with agents' telemetry frames (contracts/telemetry.ts). Each is accepted
 * only from the host the env is placed on (as live status is), so an agent cannot write another
 * host's envs. Storage stays bounded: log lines are pruned to the newest 200 per workload as they
 * are stored; samples are pruned by age in the telemetry sweep; incidents are one row per
 * fingerprint. Every store emits `telemetry` (the env id) on the bus for live streams.
 */
import { newId } from '../../contracts/ids.js';
import { LOG_RING_LINES, type IncidentReport, type LogLine, type MetricSample } from '../../contracts/telemetry.js';
import type { Bus } from '../bus.js';
import type { Db } from '../store/db.js';

/** Store log lines of `env` (once each) and keep the newest 200 per service. Returns how many were new. */
export async function storeLogLines(db: Db, host: string | null, env: string, lines: readonly LogLine[]): Promise<number> {
  if (lines.length === 0) return 0;
  const inserted = await db.query<{ service: string }>(
    `insert into env_logs (env, service, version, line_offset, at, text)
     select $1, l.service, l.version, l.line_offset, l.at, l.text
       from unnest($3::text[], $4::text[], $5::bigint[], $6::timestamptz[], $7::text[]) as l(service, version, line_offset, at, text)
      where exists (select 1 from envs where id = $1 and ($2::text is null or host = $2))
     on conflict (env, version, service, line_offset) do nothing
     returning service`,
    [env, host, lines.map((l) => l.service), lines.map((l) => l.version), lines.map((l) => l.offset), lines.map((l) => l.at), lines.map((l) => l.text)],
  );
  for (const service of new Set(inserted.map((r) => r.service))) {
    await db.query(
      `delete from env_logs where env = $1 and service = $2 and (at, line_offset) < (
         select at, line_offset from env_logs where env = $1 and service = $2 order by at desc, line_offset desc offset ${LOG_RING_LINES - 1} limit 1)`,
      [env, service],
    );
  }
  return inserted.length;
}

export async function storeSamples(db: Db, host: string, env: string, samples: readonly MetricSample[]): Promise<number> {
  if (samples.length === 0) return 0;
  const rows = await db.query<{ n: number }>(
    `with ins as (
       insert into env_samples (env, service, version, at, cpu_pct, mem_bytes, mem_limit_bytes, up, latency_ms, detail)
       select $1, s.service, s.version, s.at, s.cpu_pct, s.mem_bytes, s.mem_limit_bytes, s.up, s.latency_ms, s.detail
         from unnest($3::text[], $4::text[], $5::timestamptz[], $6::real[], $7::bigint[], $8::bigint[], $9::boolean[], $10::integer[], $11::text[])
              as s(service, version, at, cpu_pct, mem_bytes, mem_limit_bytes, up, latency_ms, detail)
        where exists (select 1 from envs where id = $1 and host = $2)
       on conflict (env, service, at) do nothing returning 1)
     select count(*)::int as n from ins`,
    [
      env, host,
      samples.map((s) => s.service), samples.map((s) => s.version), samples.map((s) => s.at), samples.map((s) => s.cpu_pct),
      samples.map((s) => (s.mem_bytes === null ? null : Math.round(s.mem_bytes))), samples.map((s) => (s.mem_limit_bytes === null ? null : Math.round(s.mem_limit_bytes))),
      samples.map((s) => s.up), samples.map((s) => (s.latency_ms === null ? null : Math.round(s.latency_ms))), samples.map((s) => s.detail),
    ],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Record an incident report. Counting (contracts/telemetry.ts): within one agent epoch only the
 * growth of `count` is added, a new epoch adds its whole count. A resolved incident that recurs is
 * open again. Filing it as an improvement is the monitor sweep's work.
 */
export async function storeIncident(db: Db, host: string, r: IncidentReport): Promise<void> {
  await db.query(
    `insert into incidents (id, team, project, env, service, fingerprint, pattern, sample, count, epoch, epoch_count, first_at, last_at)
     select $1, e.team, e.project, e.id, $4, $5, $6, $7, $8, $9, $8, $10, $11 from envs e where e.id = $2 and e.host = $3
     on conflict (env, fingerprint) do update set
       count = incidents.count + case when incidents.epoch = excluded.epoch then greatest(0, excluded.count - incidents.epoch_count) else excluded.count end,
       epoch_count = case when incidents.epoch = excluded.epoch then greatest(incidents.epoch_count, excluded.count) else excluded.count end,
       epoch = excluded.epoch,
       sample = excluded.sample,
       last_at = greatest(incidents.last_at, excluded.last_at),
       status = 'open'`,
    [newId('incident'), r.env, host, r.service, r.fingerprint, r.pattern, r.sample, r.count, r.epoch, r.first_at, r.last_at],
  );
}

/** The gateway's entry point for `logs`, `metrics` and `incident` frames. */
export async function acceptTelemetry(
  db: Db,
  bus: Bus,
  host: string,
  msg: { type: 'logs'; env: string; lines: LogLine[] } | { type: 'metrics'; env: string; samples: MetricSample[] } | ({ type: 'incident' } & IncidentReport),
): Promise<void> {
  if (msg.type === 'logs') await storeLogLines(db, host, msg.env, msg.lines);
  else if (msg.type === 'metrics') await storeSamples(db, host, msg.env, msg.samples);
  else {
    const { type: _type, ...report } = msg;
    await storeIncident(db, host, report);
    bus.emit('kick'); // the monitor files it
  }
  bus.emit('telemetry', msg.env);
}
