/**
 * The telemetry reads behind the API (DESIGN §11 "telemetry"): an env's status view, its stored
 * log lines, metric series and uptime. Plain queries over what intake.ts stored; no agent calls.
 */
import type { DeploymentKind, EnvStatus, EnvTarget, Endpoint } from '../../contracts/domain.js';
import type { LogLine, WorkloadUptime } from '../../contracts/telemetry.js';
import { allowedActions } from '../lifecycle/state-machine.js';
import { OPERABLE_FROM } from '../api/env-operations.js';
import { TARGET_KIND_DEFS } from '../operations/kinds.js';
import type { Db } from '../store/db.js';
import { iso, type EnvRow } from '../store/rows.js';

export interface StatusView {
  readonly env: string;
  readonly name: string;
  readonly status: EnvStatus;
  readonly current_version: string | null;
  readonly endpoints: readonly Endpoint[];
  readonly last_error: string | null;
  readonly host: { readonly id: string; readonly name: string; readonly status: string; readonly last_heartbeat_at: string | null } | null;
  /** As last pushed by the agent (or fetched with `refresh=true`); null before the first. */
  readonly live_status: { readonly at: string; readonly workloads: readonly Record<string, unknown>[] } | null;
  /** How old `live_status` is, in ms. */
  readonly live_status_age_ms: number | null;
  /** What a user may do now: the lifecycle actions its status allows and the data operations. */
  readonly actions: readonly string[];
}

/** The actions the env's status allows (lifecycle table + the data operations its target can run), for the UI's buttons. */
export function actionsFor(status: EnvStatus, target: EnvTarget = 'host'): string[] {
  const ops = Object.entries(OPERABLE_FROM)
    .filter(([op, from]) => (from as readonly string[]).includes(status) && TARGET_KIND_DEFS[target][op as DeploymentKind] !== undefined)
    .map(([op]) => op);
  return [...allowedActions(status), ...ops];
}

export async function statusView(db: Db, env: EnvRow): Promise<StatusView> {
  const host = env.host
    ? (await db.query<{ id: string; name: string; status: string; last_heartbeat_at: unknown }>('select id, name, status, last_heartbeat_at from hosts where id = $1', [env.host]))[0]
    : undefined;
  const live = env.live_status as { at?: string; workloads?: Record<string, unknown>[] } | null;
  const at = live?.at ?? null;
  return {
    env: env.id,
    name: env.name,
    status: env.status as EnvStatus,
    current_version: env.current_version,
    endpoints: env.endpoints ?? [],
    last_error: env.last_error,
    host: host ? { id: host.id, name: host.name, status: host.status, last_heartbeat_at: iso(host.last_heartbeat_at) } : null,
    live_status: live && at ? { at, workloads: live.workloads ?? [] } : null,
    live_status_age_ms: at ? Math.max(0, Date.now() - Date.parse(at)) : null,
    actions: actionsFor(env.status as EnvStatus, env.target),
  };
}

export interface StoredLine extends LogLine {
  readonly id: number;
}

interface LogRow { id: unknown; service: string; version: string; line_offset: unknown; at: unknown; text: string }
const toLine = (r: LogRow): StoredLine => ({ id: Number(r.id), service: r.service, version: r.version, offset: Number(r.line_offset), at: iso(r.at)!, text: r.text });

/** The newest `lines` lines of each of the env's services (or of `service`), oldest first. */
export async function storedLogs(db: Db, env: string, opts: { service?: string; lines: number }): Promise<StoredLine[]> {
  const rows = await db.query<LogRow>(
    `select id, service, version, line_offset, at, text from (
       select *, row_number() over (partition by service order by at desc, line_offset desc) as n
         from env_logs where env = $1 and ($2::text is null or service = $2)) l
      where n <= $3 order by at, line_offset`,
    [env, opts.service ?? null, opts.lines],
  );
  return rows.map(toLine);
}

/** Lines stored after `afterId` (a live tail's next batch), in arrival order. */
export async function logsAfter(db: Db, env: string, afterId: number, service?: string): Promise<StoredLine[]> {
  const rows = await db.query<LogRow>(
    'select id, service, version, line_offset, at, text from env_logs where env = $1 and id > $2 and ($3::text is null or service = $3) order by id limit 1000',
    [env, afterId, service ?? null],
  );
  return rows.map(toLine);
}

export async function lastLogId(db: Db, env: string): Promise<number> {
  const rows = await db.query<{ id: unknown }>('select coalesce(max(id), 0) as id from env_logs where env = $1', [env]);
  return Number(rows[0]?.id ?? 0);
}

export interface SeriesPoint {
  readonly at: string;
  readonly version: string;
  readonly cpu_pct: number | null;
  readonly mem_bytes: number | null;
  readonly mem_limit_bytes: number | null;
}

/** At most this many points per service are answered (the newest). */
const MAX_POINTS = 2000;

export async function metricSeries(db: Db, env: string, opts: { service?: string; windowMs: number }): Promise<{ service: string; points: SeriesPoint[] }[]> {
  const rows = await db.query<{ service: string; version: string; at: unknown; cpu_pct: number | null; mem_bytes: unknown; mem_limit_bytes: unknown }>(
    `select service, version, at, cpu_pct, mem_bytes, mem_limit_bytes from (
       select *, row_number() over (partition by service order by at desc) as n from env_samples
        where env = $1 and ($2::text is null or service = $2) and at > now() - ($3 || ' milliseconds')::interval) s
      where n <= $4 order by service, at`,
    [env, opts.service ?? null, String(opts.windowMs), MAX_POINTS],
  );
  const out = new Map<string, SeriesPoint[]>();
  for (const r of rows) {
    const list = out.get(r.service) ?? [];
    list.push({
      at: iso(r.at)!, version: r.version, cpu_pct: r.cpu_pct === null ? null : Number(r.cpu_pct),
      mem_bytes: r.mem_bytes === null ? null : Number(r.mem_bytes), mem_limit_bytes: r.mem_limit_bytes === null ? null : Number(r.mem_limit_bytes),
    });
    out.set(r.service, list);
  }
  return [...out].map(([service, points]) => ({ service, points }));
}

export async function uptime(db: Db, env: string, windowMs: number): Promise<WorkloadUptime[]> {
  const rows = await db.query<{ service: string; probes: unknown; up: unknown; last_at: unknown; last_up: boolean | null; last_latency: unknown; last_detail: string | null; down_since: unknown }>(
    `with w as (select * from env_samples where env = $1 and up is not null and at > now() - ($2 || ' milliseconds')::interval),
          last as (select distinct on (service) service, at, up, latency_ms, detail from w order by service, at desc)
     select s.service, s.probes, s.up, l.at as last_at, l.up as last_up, l.latency_ms as last_latency, l.detail as last_detail,
            case when l.up then null else (select min(at) from w d where d.service = s.service
                   and d.at > coalesce((select max(at) from w u where u.service = s.service and u.up), '-infinity')) end as down_since
       from (select service, count(*) as probes, count(*) filter (where up) as up from w group by service) s
       join last l on l.service = s.service order by s.service`,
    [env, String(windowMs)],
  );
  return rows.map((r) => {
    const probes = Number(r.probes);
    const up = Number(r.up);
    return {
      service: r.service,
      probes,
      up,
      uptime_pct: probes > 0 ? Math.round((up / probes) * 10_000) / 100 : null,
      last: r.last_at ? { at: iso(r.last_at)!, up: Boolean(r.last_up), latency_ms: r.last_latency === null ? null : Number(r.last_latency), detail: r.last_detail } : null,
      down_since: iso(r.down_since),
    };
  });
}
