/** Projects and their environments with status badges, and the latest deployments (a pending one says what it waits for). */
import { get } from '../api.js';
import { Badge, Empty, ErrorBox, Link, Section, Table } from '../components/ui.js';
import { ago, duration, between } from '../format.js';
import { useLoad, useNow } from '../hooks.js';
import type { Deployment, Env, Page, Project } from '../types.js';

export function Overview() {
  const now = useNow(5000);
  const data = useLoad(async () => {
    const [projects, envs, deployments] = await Promise.all([
      get<Page<Project>>('/v1/projects?limit=500'),
      get<Page<Env>>('/v1/envs?limit=500'),
      get<Page<Deployment>>('/v1/deployments?limit=15'),
    ]);
    return { projects: projects.items, envs: envs.items, deployments: deployments.items };
  }, [], 3000);
  if (data.error && !data.data) return <ErrorBox error={data.error} />;
  if (!data.data) return <p class="loading">Loading…</p>;
  const { projects, envs, deployments } = data.data;
  const envName = new Map(envs.map((e) => [e.id, e.name]));
  return (
    <div class="stack">
      <h1>Projects</h1>
      {projects.length === 0 ? <Empty>No projects yet: deploy one with `denv deploy -f compose.yaml --project NAME`.</Empty> : null}
      {projects.map((p) => {
        const mine = envs.filter((e) => e.project === p.id);
        return (
          <Section key={p.id} title={p.name} testid={`project-${p.name}`} actions={<span class="muted">approval {p.approval}</span>}>
            {mine.length === 0 ? (
              <Empty>No environments.</Empty>
            ) : (
              <Table head={['environment', 'stage', 'status', 'endpoints', 'created']}>
                {mine.map((e) => (
                  <tr key={e.id} data-testid={`env-row-${e.name}`}>
                    <td>
                      <Link href={`/envs/${e.id}`}>{e.name}</Link>
                    </td>
                    <td>{e.stage}</td>
                    <td>
                      <Badge status={e.status} />
                    </td>
                    <td class="wrap">
                      {e.endpoints.map((ep) => (
                        <a key={ep.url} href={ep.url} target="_blank" rel="noreferrer" class="endpoint">
                          {ep.service}
                        </a>
                      ))}
                    </td>
                    <td>{ago(e.created_at, now)}</td>
                  </tr>
                ))}
              </Table>
            )}
          </Section>
        );
      })}
      <Section title="Latest deployments">
        {deployments.length === 0 ? (
          <Empty>None yet.</Empty>
        ) : (
          <Table head={['deployment', 'kind', 'env', 'status', 'took', 'started']}>
            {deployments.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link href={`/deployments/${d.id}`}>{d.id}</Link>
                </td>
                <td>{d.kind}</td>
                <td>
                  <Link href={`/envs/${d.env}`}>{envName.get(d.env) ?? d.env}</Link>
                </td>
                <td>
                  <Badge status={d.status} />
                  {d.waiting ? (
                    <div class="muted" data-testid={`deployment-waiting-${d.id}`}>
                      waiting for {d.waiting}
                    </div>
                  ) : null}
                </td>
                <td>{duration(between(d.created_at, d.finished_at))}</td>
                <td>{ago(d.created_at, now)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
    </div>
  );
}
