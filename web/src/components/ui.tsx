/** Small shared pieces: links, status badges, sections, error boxes. */
import type { ComponentChildren } from 'preact';
import { linkClick } from '../router.js';

export function Link({ href, children, class: cls }: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={href} onClick={linkClick} class={cls}>
      {children}
    </a>
  );
}

/** Env, deployment, phase and host statuses, coloured by what they mean. */
const TONE: Record<string, string> = {
  running: 'good', succeeded: 'good', ok: 'good', connected: 'good', healthy: 'good',
  degraded: 'warn', awaiting_approval: 'warn', planning: 'busy', deploying: 'busy', upgrading: 'busy', stopping: 'busy', tearing_down: 'busy', pending: 'idle',
  failed: 'bad', rolled_back: 'bad', disconnected: 'bad', removed: 'idle', deprovisioning: 'busy',
  stopped: 'idle', torn_down: 'idle', separated: 'idle', skipped: 'idle',
};

export function Badge({ status, testid }: { status: string; testid?: string }) {
  return (
    <span class={`badge tone-${TONE[status] ?? 'idle'}`} data-testid={testid} data-status={status}>
      {status.replace(/_/g, ' ')}
    </span>
  );
}

export function Section({ title, children, actions, testid }: { title: string; children: ComponentChildren; actions?: ComponentChildren; testid?: string }) {
  return (
    <section class="card" data-testid={testid}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions ? <div class="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

export function ErrorBox({ error, testid }: { error: unknown; testid?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error-box" role="alert" data-testid={testid}>
      {message}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A table that scrolls sideways on a narrow screen instead of overflowing it. */
export function Table({ head, children, testid }: { head: readonly string[]; children: ComponentChildren; testid?: string }) {
  return (
    <div class="table-wrap">
      <table data-testid={testid}>
        <thead>
          <tr>
            {head.map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
