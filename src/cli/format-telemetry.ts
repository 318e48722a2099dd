/**
 * Text for `denv env status | logs | metrics` (pure, unit-tested): the status view with its
 * workloads table, log lines, and a per-service summary of metric samples and uptime.
 */
import type { LogLine, WorkloadUptime } from '../contracts/telemetry.js';
import { formatAge, formatFields, formatTable, truncate } from './output.js';

export interface StatusView {
  readonly env: string;
  readonly name: string;
  readonly status: string;
  readonly current_version: string | null;
  readonly endpoints: readonly { service: string; url: string }[];
  readonly last_error: string | null;
  readonly host: { id: string; name: string; status: string; last_heartbeat_at: string | null } | null;
  readonly live_status: { at: string; workloads: readonly Workload[] } | null;
  readonly actions: readonly string[];
  readonly error?: string | null;
}

interface Workload {
  readonly service: string;
  readonly version: string;
  readonly desired: number;
  readonly ready: number;
  readonly detail?: string;
  readonly pid?: number | null;
  readonly port?: number;
  readonly restarts?: number;
  readonly last_exit?: string | null;
  readonly last_exit_at?: string | null;
  readonly state?: string;
  readonly volumes?: readonly { name: string; bytes: number; truncated: boolean }[];
}

/** `12.3 MiB`, `512 B`, `1.5 GiB`. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

export function formatStatusView(v: StatusView, now: number): string {
  const fields: [string, string][] = [
    ['env', `${v.name} (${v.env})`],
    ['status', v.status],
    ['version', v.current_version ?? '—'],
    ['host', v.host ? `${v.host.name} (${v.host.status}, heartbeat ${formatAge(v.host.last_heartbeat_at, now)})` : '—'],
    ['live status', v.live_status ? `as of ${formatAge(v.live_status.at, now)}` : 'none reported yet'],
  ];
  v.endpoints.forEach((e, i) => fields.push([i === 0 ? 'endpoints' : '', `${e.service} → ${e.url}`]));
  if (v.last_error) fields.push(['last error', v.last_error]);
  fields.push(['actions', v.actions.join(', ') || '—']);
  if (v.error) fields.push(['refresh', `failed: ${v.error}`]);
  const out = [formatFields(fields)];
  const workloads = v.live_status?.workloads ?? [];
  if (workloads.length > 0) {
    out.push(
      '',
      formatTable(
        ['service', 'version', 'ready', 'pid', 'restarts', 'last exit', 'volumes', 'detail'],
        workloads.map((w) => [
          w.service,
          w.version,
          `${w.ready}/${w.desired}`,
          w.pid ? String(w.pid) : '—',
          String(w.restarts ?? 0),
          w.last_exit ? `${w.last_exit}${w.last_exit_at ? ` (${formatAge(w.last_exit_at, now)})` : ''}` : '—',
          (w.volumes ?? []).map((vol) => `${vol.name} ${formatBytes(vol.bytes)}${vol.truncated ? '+' : ''}`).join(' ') || '—',
          truncate(w.detail ?? '', 60),
        ]),
      ),
    );
  }
  return out.join('\n');
}

/** One log line; prefixed with its service when the env has several. */
export function formatLogLine(l: Pick<LogLine, 'service' | 'text'>, withService: boolean): string {
  return withService ? `${l.service} | ${l.text}` : l.text;
}

export interface Series {
  readonly service: string;
  readonly points: readonly { at: string; cpu_pct: number | null; mem_bytes: number | null; mem_limit_bytes: number | null }[];
}

const pct = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${n.toFixed(1)}%`);

export function formatMetrics(series: readonly Series[], uptime: readonly WorkloadUptime[], windowMs: number): string {
  const services = [...new Set([...series.map((s) => s.service), ...uptime.map((u) => u.service)])].sort();
  if (services.length === 0) return `no samples in the last ${Math.round(windowMs / 60_000)} min`;
  const rows = services.map((service) => {
    const pts = series.find((s) => s.service === service)?.points ?? [];
    const cpus = pts.map((p) => p.cpu_pct).filter((c): c is number => c !== null);
    const mems = pts.map((p) => p.mem_bytes).filter((m): m is number => m !== null);
    const last = pts[pts.length - 1];
    const up = uptime.find((u) => u.service === service);
    return [
      service,
      String(pts.length),
      pct(last?.cpu_pct),
      cpus.length ? pct(cpus.reduce((a, b) => a + b, 0) / cpus.length) : '—',
      cpus.length ? pct(Math.max(...cpus)) : '—',
      formatBytes(last?.mem_bytes),
      mems.length ? formatBytes(Math.max(...mems)) : '—',
      formatBytes(last?.mem_limit_bytes ?? null),
      up?.uptime_pct === null || up?.uptime_pct === undefined ? '—' : `${up.uptime_pct}% of ${up.probes}`,
      up?.last ? `${up.last.up ? 'up' : 'down'} (${up.last.detail ?? ''})` : '—',
    ];
  });
  return formatTable(['service', 'samples', 'cpu', 'cpu avg', 'cpu max', 'mem', 'mem max', 'limit', 'uptime', 'last probe'], rows);
}
