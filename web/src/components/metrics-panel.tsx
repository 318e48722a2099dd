/** CPU and memory charts per service, and uptime, over the last 15 minutes (polled). */
import { get } from '../api.js';
import { bytes } from '../format.js';
import { useLoad } from '../hooks.js';
import type { Series, WorkloadUptime } from '../types.js';
import { LineChart } from './chart.js';
import { Empty, Table } from './ui.js';

export function MetricsPanel({ env }: { env: string }) {
  const metrics = useLoad(() => get<{ services: Series[] }>(`/v1/envs/${encodeURIComponent(env)}/metrics?window=15m`), [env], 5000);
  const services = metrics.data?.services ?? [];
  if (services.length === 0) return <Empty>{metrics.data ? 'No samples yet.' : 'Loading…'}</Empty>;
  return (
    <div class="charts">
      {services.map((s) => {
        const cpu = s.points.filter((p) => p.cpu_pct !== null).map((p) => ({ t: Date.parse(p.at), v: p.cpu_pct! }));
        const mem = s.points.filter((p) => p.mem_bytes !== null).map((p) => ({ t: Date.parse(p.at), v: p.mem_bytes! }));
        const limit = s.points[s.points.length - 1]?.mem_limit_bytes ?? null;
        return (
          <div key={s.service} class="chart-pair">
            <LineChart title={`${s.service} CPU`} points={cpu} format={(v) => `${v.toFixed(1)}%`} testid={`chart-cpu-${s.service}`} />
            <LineChart title={`${s.service} memory${limit ? ` (limit ${bytes(limit)})` : ''}`} points={mem} format={bytes} testid={`chart-memory-${s.service}`} />
          </div>
        );
      })}
    </div>
  );
}

export function UptimePanel({ env }: { env: string }) {
  const up = useLoad(() => get<{ services: WorkloadUptime[] }>(`/v1/envs/${encodeURIComponent(env)}/uptime?window=1h`), [env], 10_000);
  const services = up.data?.services ?? [];
  if (services.length === 0) return <Empty>{up.data ? 'No probes yet (only HTTP services are probed).' : 'Loading…'}</Empty>;
  return (
    <Table head={['service', 'uptime (1 h)', 'probes', 'last probe', 'down since']} testid="uptime">
      {services.map((u) => (
        <tr key={u.service}>
          <td>{u.service}</td>
          <td>
            <span class={`badge tone-${u.uptime_pct === null ? 'idle' : u.uptime_pct >= 99 ? 'good' : u.uptime_pct >= 90 ? 'warn' : 'bad'}`}>{u.uptime_pct === null ? '—' : `${u.uptime_pct}%`}</span>
          </td>
          <td>{u.probes}</td>
          <td>{u.last ? `${u.last.up ? 'up' : 'down'} · ${u.last.detail ?? ''}${u.last.latency_ms !== null ? ` · ${u.last.latency_ms} ms` : ''}` : '—'}</td>
          <td>{u.down_since ?? '—'}</td>
        </tr>
      ))}
    </Table>
  );
}
