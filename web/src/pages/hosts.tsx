/** Hosts: status (and drained), last heartbeat, where each came from (sidecar or its cloud), its address, its envs, resources and runtime facts. */
import { get } from '../api.js';
import { Badge, Empty, ErrorBox, Section, Table } from '../components/ui.js';
import { ago, bytes } from '../format.js';
import { useLoad, useNow } from '../hooks.js';
import type { Host, Page } from '../types.js';

export function Hosts() {
  const now = useNow();
  const data = useLoad(() => get<Page<Host>>('/v1/hosts?limit=500'), [], 3000);
  if (data.error && !data.data) return <ErrorBox error={data.error} />;
  if (!data.data) return <p class="loading">Loading…</p>;
  return (
    <div class="stack">
      <h1>Hosts</h1>
      <Section title={`${data.data.items.length} host(s)`} testid="hosts">
        {data.data.items.length === 0 ? (
          <Empty>No host yet: start `denv agent --control URL --enrollment-key KEY` on a machine.</Empty>
        ) : (
          <Table head={['name', 'status', 'last heartbeat', 'from', 'address', 'envs', 'cpus / memory / disk free', 'runtimes', 'datasets', 'agent', 'platform', 'id']} testid="hosts-table">
            {data.data.items.map((h) => (
              <tr key={h.id} data-testid={`host-${h.name}`}>
                <td>{h.name}</td>
                <td>
                  <Badge status={h.status} />
                  {h.drained_at ? <span class="small" data-testid={`host-${h.name}-drained`}> drained</span> : null}
                </td>
                <td>{ago(h.last_heartbeat_at, now)}</td>
                <td>{h.kind === 'provider' ? `cloud ${h.cloud ?? '?'}` : 'sidecar'}</td>
                <td class="mono">{h.facts?.address ?? '127.0.0.1'}</td>
                <td>{h.envs}</td>
                <td>{h.facts?.cpus ? `${h.facts.cpus} / ${bytes(h.facts.memory_bytes)} / ${h.facts.disk_free_bytes !== undefined ? bytes(h.facts.disk_free_bytes) : '—'}` : '—'}</td>
                <td>{h.facts?.runtimes.join(', ') ?? '—'}</td>
                <td>{h.facts?.dataset_driver ?? '—'}</td>
                <td>{h.facts?.agent_version ?? '—'}</td>
                <td>{h.facts ? `${h.facts.platform}/${h.facts.arch}` : '—'}</td>
                <td class="mono">{h.id}</td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
    </div>
  );
}
