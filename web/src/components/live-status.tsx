/** Per workload: ready/desired, pid, restarts, last exit reason (e.g. OOMKilled), volumes, probe detail. */
import { ago, bytes } from '../format.js';
import type { StatusView } from '../types.js';
import { Empty, Table } from './ui.js';

export function LiveStatusTable({ view, now }: { view: StatusView; now: number }) {
  const workloads = view.live_status?.workloads ?? [];
  if (workloads.length === 0) return <Empty>No workload reported{view.live_status ? '' : ' yet'}.</Empty>;
  return (
    <>
      <p class="muted small">as of {ago(view.live_status?.at, now)}</p>
      <Table head={['service', 'ready', 'pid', 'restarts', 'last exit', 'port', 'volumes', 'probe', 'version']} testid="workloads">
        {workloads.map((w) => (
          <tr key={`${w.service}/${w.version}`} data-testid={`workload-${w.service}`} class={w.ready < w.desired ? 'row-bad' : ''}>
            <td>{w.service}</td>
            <td>
              <span class={`badge tone-${w.ready >= w.desired ? 'good' : 'bad'}`}>
                {w.ready}/{w.desired}
              </span>
            </td>
            <td class="mono">{w.pid ?? '—'}</td>
            <td>{w.restarts}</td>
            <td data-testid={`last-exit-${w.service}`} class={w.last_exit ? 'warn-text' : ''}>
              {w.last_exit ? `${w.last_exit}${w.last_exit_at ? ` (${ago(w.last_exit_at, now)})` : ''}` : '—'}
            </td>
            <td class="mono">{w.port}</td>
            <td>{(w.volumes ?? []).map((v) => `${v.name} ${bytes(v.bytes)}${v.truncated ? '+' : ''}`).join(', ') || '—'}</td>
            <td class="wrap">{w.detail}</td>
            <td class="mono small">{w.version}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
