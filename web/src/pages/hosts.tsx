/**
 * Hosts: status (and drained), last heartbeat, where each came from (sidecar or its cloud), its
 * address, its envs, resources and runtime facts; a cluster agent shows its Kubernetes cluster
 * instead. Below, the team's AWS accounts (aws_ecs envs), with the hand-over an env's separation
 * requested of the operator.
 */
import { get } from '../api.js';
import { Badge, Empty, ErrorBox, Section, Table } from '../components/ui.js';
import { ago, bytes, time } from '../format.js';
import { useLoad, useNow } from '../hooks.js';
import type { AwsAccount, Host, Page } from '../types.js';

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
          <Empty>No host yet: start `denv agent --control URL --enrollment-key KEY` on a machine, or `denv agent --kubernetes` for a cluster.</Empty>
        ) : (
          <Table head={['name', 'status', 'last heartbeat', 'from', 'address', 'envs', 'cpus / memory / disk free', 'runtimes', 'datasets', 'agent', 'platform', 'id']} testid="hosts-table">
            {data.data.items.map((h) => (
              <HostRow key={h.id} host={h} now={now} />
            ))}
          </Table>
        )}
      </Section>
      <AwsAccounts now={now} />
    </div>
  );
}

/** A cluster agent (`denv agent --kubernetes`) runs nothing itself: no address, resources or
 *  datasets of its own; what matters is the cluster it applies to. */
function HostRow({ host: h, now }: { host: Host; now: number }) {
  const isCluster = h.facts?.runtimes.includes('kubernetes') ?? false;
  const cluster = isCluster ? h.facts?.cluster : undefined;
  return (
    <tr data-testid={`host-${h.name}`}>
      <td>{h.name}</td>
      <td>
        <Badge status={h.status} />
        {h.drained_at ? <span class="small" data-testid={`host-${h.name}-drained`}> drained</span> : null}
      </td>
      <td>{ago(h.last_heartbeat_at, now)}</td>
      <td>{h.kind === 'provider' ? `cloud ${h.cloud ?? '?'}` : 'sidecar'}</td>
      {isCluster ? <td>—</td> : <td class="mono">{h.facts?.address ?? '127.0.0.1'}</td>}
      <td>{h.envs}</td>
      <td>{!isCluster && h.facts?.cpus ? `${h.facts.cpus} / ${bytes(h.facts.memory_bytes)} / ${h.facts.disk_free_bytes !== undefined ? bytes(h.facts.disk_free_bytes) : '—'}` : '—'}</td>
      {isCluster ? (
        <td data-testid={`host-${h.name}-cluster`}>
          <strong>Kubernetes cluster</strong> {cluster?.version ?? '?'}
          <div class="small">
            namespace <span class="mono">{cluster?.namespace ?? '?'}</span>
          </div>
          {cluster ? (
            <div class="small muted">
              ingress {cluster.ingress_classes.length > 0 ? cluster.ingress_classes.join(', ') : 'none'}
              {cluster.cert_manager ? ' · cert-manager' : ''} · storage {cluster.default_storage_class ?? 'no default'}
            </div>
          ) : null}
        </td>
      ) : (
        <td>{h.facts?.runtimes.join(', ') ?? '—'}</td>
      )}
      <td>{isCluster ? 'PVCs' : h.facts?.dataset_driver ?? '—'}</td>
      <td>{h.facts?.agent_version ?? '—'}</td>
      <td>{h.facts ? `${h.facts.platform}/${h.facts.arch}` : '—'}</td>
      <td class="mono">{h.id}</td>
    </tr>
  );
}

/** How denv reaches an account: its keys, a role it assumes, or an account the operator's organization made. */
function accountHow(a: AwsAccount): string {
  if (a.kind === 'keys') return 'keys';
  if (a.kind === 'role') return `role ${a.role_arn ?? ''}`;
  return `vended${a.account_id ? ` (${a.account_id})` : ''} for ${a.email ?? '—'}`;
}

/** The team's AWS accounts. A hand-over is the operator's to do (nothing is transferred
 *  automatically), so it stands out until the account is removed. */
function AwsAccounts({ now }: { now: number }) {
  const accounts = useLoad(() => get<Page<AwsAccount>>('/v1/aws-accounts?limit=500'), [], 5000);
  const items = accounts.data?.items ?? [];
  const flagged = items.filter((a) => a.handover_requested_at !== null);
  return (
    <Section title={accounts.data ? `${items.length} AWS account(s)` : 'AWS accounts'} testid="aws-accounts">
      <ErrorBox error={accounts.error} />
      {!accounts.data ? (
        accounts.error ? null : <p class="loading">Loading…</p>
      ) : items.length === 0 ? (
        <Empty>No AWS account: `denv aws-account add NAME --region REGION` with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set (or --role-arn, or --vend-email), for envs with `x-denv.target: aws_ecs`.</Empty>
      ) : (
        <>
          {flagged.length > 0 ? (
            <p class="warn-text" data-testid="aws-handover-note">
              An env was separated on {flagged.map((a) => a.name).join(', ')}: hand the account over to its owner. denv changes nothing in AWS and transfers nothing by itself.
            </p>
          ) : null}
          <Table head={['name', 'region', 'how', 'state', 'API', 'hand-over', 'added', 'id']} testid="aws-accounts-table">
            {items.map((a) => (
              <tr key={a.id} data-testid={`aws-account-${a.name}`}>
                <td>{a.name}</td>
                <td>{a.region}</td>
                <td data-testid={`aws-account-${a.name}-kind`}>{accountHow(a)}</td>
                <td data-testid={`aws-account-${a.name}-state`} data-state={a.state}>
                  {a.state === 'ready' ? <span class="badge tone-good">ready</span> : a.state === 'vending' ? <span class="badge tone-busy">being created</span> : <span class="badge tone-bad" title={a.failure_reason ?? ''}>failed: {a.failure_reason}</span>}
                </td>
                <td class={a.endpoint ? 'mono' : ''}>{a.endpoint ?? 'AWS'}</td>
                <td>
                  {a.handover_requested_at ? (
                    <span data-testid={`aws-account-${a.name}-handover`} data-at={a.handover_requested_at}>
                      <span class="badge tone-warn">hand-over requested</span> <span class="small">{time(a.handover_requested_at)} ({ago(a.handover_requested_at, now)})</span>
                    </span>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
                <td>{ago(a.created_at, now)}</td>
                <td class="mono">{a.id}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </Section>
  );
}
