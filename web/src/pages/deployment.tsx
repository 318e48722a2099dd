/**
 * The deployment page (seed 002 "the deployment detail page"): every phase with its status,
 * duration and evidence (expandable), updated live from `GET /v1/deployments/{id}/stream` while it
 * runs; the error and the verdict highlighted at the top; what its builds printed (the stream's
 * `output` events while it runs, its `deployment.output` events once it has finished).
 */
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Badge, ErrorBox, Link, Section } from '../components/ui.js';
import { between, duration, time } from '../format.js';
import { useLoad, useNow, useStream } from '../hooks.js';
import type { Deployment, Env, Phase } from '../types.js';

const TERMINAL = new Set(['succeeded', 'failed', 'rolled_back']);
/** The build output shown at most (its last lines). */
const OUTPUT_SHOWN = 2000;

interface OutputBatch {
  readonly service: string;
  readonly lines: readonly string[];
}

function BuildOutput({ batches }: { batches: readonly OutputBatch[] }) {
  const lines = batches.flatMap((b) => b.lines.map((l) => `${b.service} | ${l}`)).slice(-OUTPUT_SHOWN);
  if (lines.length === 0) return null;
  return (
    <Section title="Build output">
      <pre class="build-output" data-testid="build-output">
        {lines.join('\n')}
      </pre>
    </Section>
  );
}

/** The verdict in words, from the deployment and its `verdict` phase's evidence. */
function verdictText(d: Deployment): string | null {
  if (!TERMINAL.has(d.status)) return null;
  const ev = (d.phases.find((p) => p.name === 'verdict')?.evidence ?? {}) as Record<string, unknown>;
  if (d.status === 'succeeded') return `Succeeded${typeof ev.version === 'string' ? `: version ${ev.version} is live` : ''}.`;
  if (d.status === 'rolled_back') return `Rolled back${typeof ev.reverted_to === 'string' ? ` to version ${ev.reverted_to}` : ''}: the previous version keeps serving.`;
  return `Failed${typeof ev.reverted === 'string' ? ` (${ev.reverted})` : ''}.`;
}

function PhaseRow({ phase, index, error, now }: { phase: Phase; index: number; error: string | null; now: number }) {
  const took = phase.started_at ? between(phase.started_at, phase.finished_at ?? new Date(now).toISOString()) : null;
  const ev = phase.evidence as Record<string, unknown> | null;
  const message = phase.status === 'failed' ? (typeof ev?.error === 'string' ? ev.error : error) : null;
  return (
    <li class={`phase phase-${phase.status}${phase.name === 'verdict' ? ' phase-verdict' : ''}`} data-testid={`phase-${phase.name}`} data-status={phase.status}>
      <div class="phase-line">
        <span class="phase-index">{index + 1}</span>
        <span class="phase-name">{phase.name}</span>
        <Badge status={phase.status} />
        <span class="phase-took">{phase.status === 'pending' || phase.status === 'skipped' ? '' : duration(took)}</span>
      </div>
      {message ? (
        <div class="error-box" data-testid={`phase-error-${phase.name}`}>
          {message}
        </div>
      ) : null}
      {ev && Object.keys(ev).length > 0 ? (
        <details class="evidence" open={phase.status === 'failed' || phase.name === 'verdict'}>
          <summary>evidence</summary>
          <pre>{JSON.stringify(ev, null, 2)}</pre>
        </details>
      ) : null}
    </li>
  );
}

export function DeploymentPage({ id }: { id: string }) {
  const now = useNow(500);
  const [live, setLive] = useState<Deployment | null>(null);
  const [streamed, setStreamed] = useState<readonly OutputBatch[]>([]);
  const first = useLoad(() => get<Deployment>(`/v1/deployments/${encodeURIComponent(id)}`), [id]);
  const dep = live ?? first.data;
  const env = useLoad(() => (dep ? get<Env>(`/v1/envs/${encodeURIComponent(dep.env)}`) : Promise.resolve(undefined)), [dep?.env]);
  // The stream sends the deployment on every change and ends after a terminal status.
  // It also sends what the builds printed: what came before it opened, then each batch as it comes.
  useStream(dep && TERMINAL.has(dep.status) ? null : `/v1/deployments/${encodeURIComponent(id)}/stream`, (m) => {
    if (m.event === 'deployment') setLive(JSON.parse(m.data) as Deployment);
    else if (m.event === 'output') setStreamed((all) => [...all, JSON.parse(m.data) as OutputBatch]);
  });
  // A deployment that had finished when the page opened: its output as stored.
  const finishedAtLoad = first.data !== undefined && TERMINAL.has(first.data.status);
  const stored = useLoad(
    () => (finishedAtLoad ? get<{ items: { type: string; data: OutputBatch }[] }>(`/v1/events?subject=${encodeURIComponent(`dep:${id}`)}&limit=1000`) : Promise.resolve(undefined)),
    [id, finishedAtLoad],
  );
  const output = streamed.length > 0 ? streamed : (stored.data?.items ?? []).filter((e) => e.type === 'deployment.output').map((e) => e.data);
  if (first.error && !dep) return <ErrorBox error={first.error} />;
  if (!dep) return <p class="loading">Loading…</p>;
  const verdict = verdictText(dep);
  const done = dep.phases.filter((p) => p.status === 'ok' || p.status === 'skipped').length;
  return (
    <div class="stack">
      <div class="title-row">
        <h1>
          {dep.kind} <span class="mono muted">{dep.id}</span>
        </h1>
        <Badge status={dep.status} testid="deployment-status" />
      </div>
      <p class="muted">
        env{' '}
        <Link href={`/envs/${dep.env}`}>{env.data?.name ?? dep.env}</Link> · started {time(dep.created_at)} · {dep.finished_at ? `took ${duration(between(dep.created_at, dep.finished_at))}` : `running for ${duration(now - Date.parse(dep.created_at))}`} ·{' '}
        {done}/{dep.phases.length} phases done
      </p>
      {dep.error ? (
        <div class="error-box big" data-testid="deployment-error">
          <strong>Error</strong> {dep.error}
        </div>
      ) : null}
      {dep.waiting ? (
        <div class="note-box" data-testid="deployment-waiting">
          <strong>Waiting for</strong> {dep.waiting}
        </div>
      ) : null}
      {verdict ? (
        <div class={`verdict-box verdict-${dep.status}`} data-testid="deployment-verdict">
          <strong>Verdict</strong> {verdict}
        </div>
      ) : null}
      <Section title="Phases">
        <ol class="phases" data-testid="phases">
          {dep.phases.map((p, i) => (
            <PhaseRow key={p.name} phase={p} index={i} error={dep.error} now={now} />
          ))}
        </ol>
      </Section>
      <BuildOutput batches={output} />
    </div>
  );
}
