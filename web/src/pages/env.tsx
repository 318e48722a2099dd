/**
 * The environment page: status and current version, the actions its status allows (with
 * confirmation and re-plan guidance), live status per workload, endpoints, CPU and memory charts,
 * uptime, a live log tail, versions with rollback / fork / snapshot, deployments, incidents and the
 * event trail. Status comes live from `GET /v1/envs/{env}/status/stream`.
 */
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { ConfirmDialog, type ConfirmRequest } from '../components/dialog.js';
import { EnvActions, runAction } from '../components/env-actions.js';
import { EventTrail } from '../components/event-trail.js';
import { LiveStatusTable } from '../components/live-status.js';
import { LogTail } from '../components/log-tail.js';
import { MetricsPanel, UptimePanel } from '../components/metrics-panel.js';
import { Badge, Empty, ErrorBox, Link, Section, Table } from '../components/ui.js';
import { ago, between, duration } from '../format.js';
import { useLoad, useNow, useStream } from '../hooks.js';
import type { AwsAccount, Deployment, Env, Incident, Page, Plan, Project, StatusView, Version } from '../types.js';

export function EnvPage({ id }: { id: string }) {
  const now = useNow();
  const [view, setView] = useState<StatusView | null>(null);
  const [dialog, setDialog] = useState<ConfirmRequest | null>(null);
  const [rollbackNote, setRollbackNote] = useState<{ message: string; deployment: string | null; error: boolean } | null>(null);
  const enc = encodeURIComponent(id);
  const first = useLoad(() => get<StatusView>(`/v1/envs/${enc}/status`), [id]);
  useStream(`/v1/envs/${enc}/status/stream`, (m) => {
    if (m.event === 'status') setView(JSON.parse(m.data) as StatusView);
  });
  const env = useLoad(() => get<Env>(`/v1/envs/${enc}`), [id], 5000);
  // An aws_ecs env names its account by id: the page shows the account's name.
  const account = useLoad(
    () => (env.data?.aws_account ? get<Page<AwsAccount>>('/v1/aws-accounts?limit=500').then((p) => p.items.find((a) => a.id === env.data?.aws_account)) : Promise.resolve(undefined)),
    [env.data?.aws_account],
  );
  const project = useLoad(() => (env.data ? get<Project>(`/v1/projects/${encodeURIComponent(env.data.project)}`) : Promise.resolve(undefined)), [env.data?.project]);
  const versions = useLoad(() => get<Page<Version>>(`/v1/envs/${enc}/versions?limit=500`), [id], 5000);
  const deployments = useLoad(() => get<Page<Deployment>>(`/v1/deployments?env=${enc}&limit=20`), [id], 3000);
  const incidents = useLoad(() => get<Page<Incident>>(`/v1/envs/${enc}/incidents?limit=50`), [id], 10_000);
  const v = view ?? first.data;
  const awaiting = v?.status === 'awaiting_approval' || v?.status === 'planning';
  const plans = useLoad(() => (awaiting ? get<Page<Plan>>(`/v1/envs/${enc}/plans?limit=1`) : Promise.resolve(undefined)), [id, awaiting]);
  if (first.error && !v) return <ErrorBox error={first.error} />;
  if (!v) return <p class="loading">Loading…</p>;
  const current = versions.data?.items.find((x) => x.id === v.current_version);
  const canRollback = v.actions.includes('rollback');
  const plan = plans.data?.items[0];

  return (
    <div class="stack">
      <ConfirmDialog request={dialog} onClose={() => setDialog(null)} />
      <div class="title-row">
        <h1 data-testid="env-name">{v.name}</h1>
        <Badge status={v.status} testid="env-status" />
      </div>
      <p class="muted">
        project {project.data ? project.data.name : env.data?.project ?? '…'} · {env.data?.stage ?? ''} · version {current ? `#${current.number}` : '—'}
        {v.current_version ? <span class="mono small"> ({v.current_version})</span> : null}
        {env.data && env.data.target !== 'host' ? <span data-testid="env-target"> · target {env.data.target}</span> : null}
        {env.data?.target === 'aws_ecs'
          ? ` · AWS account ${account.data ? `${account.data.name} (${account.data.region})` : (env.data.aws_account ?? '—')}`
          : ` · ${env.data?.target === 'kubernetes' ? 'cluster' : 'host'} ${v.host ? `${v.host.name} (${v.host.status}, heartbeat ${ago(v.host.last_heartbeat_at, now)})` : '—'}`}
      </p>
      {v.last_error ? (
        <div class="error-box" data-testid="env-last-error">
          <strong>Last error</strong> {v.last_error}
        </div>
      ) : null}

      <Section title="Actions">
        <EnvActions env={v.env} name={v.name} actions={v.actions} ask={setDialog} />
        {plan ? (
          <div class="plan" data-testid="plan">
            <h3>
              Plan <Badge status={plan.status} />
            </h3>
            <pre class="plan-summary">{plan.summary}</pre>
            <p class="muted small">
              Approve to apply it; nothing touches a host, cluster or AWS account before. Re-plan to have it planned again, optionally with guidance for the planner (kept in the plan history).
            </p>
          </div>
        ) : null}
      </Section>

      <Section title="Live status" testid="live-status">
        <LiveStatusTable view={v} now={now} />
      </Section>

      <Section title="Endpoints">
        {v.endpoints.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <ul class="endpoints" data-testid="endpoints">
            {v.endpoints.map((e) => (
              <li key={e.url}>
                {e.service}:{' '}
                <a href={e.url} target="_blank" rel="noreferrer">
                  {e.url}
                </a>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="CPU and memory (15 min)" testid="metrics">
        <MetricsPanel env={v.env} />
      </Section>

      <Section title="Uptime">
        <UptimePanel env={v.env} />
      </Section>

      <Section title="Logs (live)" testid="logs">
        <LogTail env={v.env} />
      </Section>

      <Section title="Versions" testid="versions">
        {rollbackNote ? (
          <p class={rollbackNote.error ? 'error-box' : 'note-box'}>
            {rollbackNote.message}
            {rollbackNote.deployment ? (
              <>
                {' '}
                · <Link href={`/deployments/${rollbackNote.deployment}`}>follow it</Link>
              </>
            ) : null}
          </p>
        ) : null}
        {(versions.data?.items.length ?? 0) === 0 ? (
          <Empty>No version yet.</Empty>
        ) : (
          <Table head={['#', 'id', 'healthy', 'snapshot', 'services', 'created', '']}>
            {[...(versions.data?.items ?? [])].reverse().map((x) => (
              <tr key={x.id} data-testid={`version-${x.number}`} class={x.id === v.current_version ? 'row-current' : ''}>
                <td>
                  #{x.number}
                  {x.id === v.current_version ? <span class="badge tone-good small">current</span> : null}
                </td>
                <td class="mono small">{x.id}</td>
                <td>{x.healthy ? 'yes' : 'no'}</td>
                <td class="mono small">{x.snapshot ?? '—'}</td>
                <td>{Object.keys(x.services).join(', ')}</td>
                <td>{ago(x.created_at, now)}</td>
                <td>
                  {canRollback && x.healthy && x.snapshot && x.id !== v.current_version ? (
                    <button
                      class="button danger small"
                      data-testid={`rollback-${x.number}`}
                      onClick={() =>
                        setDialog({
                          title: `Roll back ${v.name} to version #${x.number}`,
                          message: `Restore ${v.name} to version #${x.number}, data included, from its snapshot. Data written since that snapshot is replaced.`,
                          confirm: 'Roll back',
                          danger: true,
                          onConfirm: () => void runAction(v.env, 'rollback', '', { version: x.id }).then(setRollbackNote),
                        })
                      }
                    >
                      Roll back
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Section>

      <Section title="Deployments">
        {(deployments.data?.items.length ?? 0) === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <Table head={['deployment', 'kind', 'status', 'error / waiting for', 'took', 'started']} testid="env-deployments">
            {deployments.data!.items.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link href={`/deployments/${d.id}`}>{d.id}</Link>
                </td>
                <td>{d.kind}</td>
                <td>
                  <Badge status={d.status} />
                </td>
                <td class="wrap" data-testid={`env-deployment-note-${d.id}`}>
                  {d.error ?? d.waiting ?? ''}
                </td>
                <td>{duration(between(d.created_at, d.finished_at))}</td>
                <td>{ago(d.created_at, now)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Section>

      <Section title="Incidents" testid="incidents">
        {(incidents.data?.items.length ?? 0) === 0 ? (
          <Empty>No recurring errors.</Empty>
        ) : (
          <ul class="incidents">
            {incidents.data!.items.map((i) => (
              <li key={i.id} class="incident" data-testid={`incident-${i.id}`}>
                <div>
                  <Badge status={i.status === 'open' ? 'failed' : 'ok'} /> <strong>{i.service}</strong> · seen {i.count}× · last {ago(i.last_at, now)}
                  {i.improvement ? <span class="muted small"> · filed as {i.improvement}</span> : null}
                </div>
                <code class="pattern">{i.pattern}</code>
                <pre class="sample">{i.sample}</pre>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="Event trail">
        <EventTrail subject={`env:${v.env}`} now={now} />
      </Section>
    </div>
  );
}
