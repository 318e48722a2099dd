/**
 * The actions an env's status allows (the API's `actions`, from the lifecycle table and the data
 * operations), as buttons. Destructive ones ask for confirmation first; re-plan asks for guidance;
 * fork for an optional name. What an action started is linked (its deployment page).
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, del, post } from '../api.js';
import type { Deployment } from '../types.js';
import type { ConfirmRequest } from './dialog.js';
import { Link } from './ui.js';

interface ActionDef {
  readonly label: string;
  readonly danger?: boolean;
  /** Text of the confirmation; absent: runs at once. */
  readonly confirm?: (name: string) => string;
  readonly input?: ConfirmRequest['input'];
}

export const ACTIONS: Readonly<Record<string, ActionDef>> = {
  approve: { label: 'Approve plan' },
  replan: {
    label: 'Re-plan',
    confirm: (n) => `Plan ${n} again. Guidance is appended to the planner's instructions and kept in the plan history (e.g. "use port 8080", "keep 2 replicas").`,
    input: { label: 'Guidance (optional)', placeholder: 'what the planner should do differently', multiline: true },
  },
  start: { label: 'Start' },
  stop: { label: 'Stop', danger: true, confirm: (n) => `Stop every service of ${n}? Its record, plan and data are kept; Start brings it back.` },
  snapshot: { label: 'Snapshot' },
  fork: { label: 'Fork', confirm: (n) => `Fork ${n}: a new env from its current version's snapshot, data included, on the same host.`, input: { label: 'Name of the fork (optional)', placeholder: 'e.g. try-migration' } },
  verify: { label: 'Verify' },
  teardown: { label: 'Tear down', danger: true, confirm: (n) => `Tear down ${n}? Its processes, datasets, snapshots and ports are removed from the host. This cannot be undone (torn_down is final).` },
  separate: { label: 'Separate', danger: true, confirm: (n) => `Separate ${n} from denv? The workload keeps running but denv stops managing it for good.` },
  delete_record: { label: 'Delete record', danger: true, confirm: (n) => `Delete the record of ${n}? Its events are kept; nothing runs on a host any more.` },
};

const ORDER = ['approve', 'replan', 'start', 'stop', 'snapshot', 'fork', 'verify', 'teardown', 'separate', 'delete_record'];

export interface ActionOutcome {
  readonly message: string;
  readonly deployment: string | null;
  readonly error: boolean;
}

/** Send an action; resolve with what to tell the user. */
export async function runAction(env: string, action: string, input: string, extra?: Record<string, unknown>): Promise<ActionOutcome> {
  const base = `/v1/envs/${encodeURIComponent(env)}`;
  try {
    if (action === 'delete_record') {
      await del(`${base}/record`);
      return { message: 'Record deleted.', deployment: null, error: false };
    }
    const body = action === 'replan' ? (input.trim() ? { guidance: input.trim() } : {}) : action === 'fork' ? (input.trim() ? { name: input.trim() } : {}) : (extra ?? {});
    const out = await post<{ deployment: Deployment | null; env?: { id: string; name: string } }>(`${base}/${action === 'rollback' ? 'rollback' : action}`, body);
    const dep = out.deployment;
    const what = action === 'fork' && out.env ? `fork ${out.env.name} started` : `${ACTIONS[action]?.label ?? action} started`;
    return { message: dep ? `${what}: ${dep.kind} ${dep.id}` : `${what}.`, deployment: dep?.id ?? null, error: false };
  } catch (err) {
    return { message: err instanceof ApiError ? `${err.code}: ${err.message}` : String(err), deployment: null, error: true };
  }
}

export function EnvActions({ env, name, actions, ask }: { env: string; name: string; actions: readonly string[]; ask: (r: ConfirmRequest) => void }) {
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const go = async (action: string, input = '') => {
    setBusy(action);
    setOutcome(await runAction(env, action, input));
    setBusy(null);
  };
  const buttons: ComponentChildren[] = ORDER.filter((a) => actions.includes(a)).map((a) => {
    const def = ACTIONS[a]!;
    return (
      <button
        key={a}
        class={`button ${def.danger ? 'danger' : a === 'approve' || a === 'start' ? 'primary' : ''}`}
        disabled={busy !== null}
        data-testid={`action-${a}`}
        onClick={() =>
          def.confirm
            ? ask({ title: `${def.label} ${name}`, message: def.confirm(name), confirm: def.label, danger: Boolean(def.danger), input: def.input, onConfirm: (v) => void go(a, v) })
            : void go(a)
        }
      >
        {busy === a ? `${def.label}…` : def.label}
      </button>
    );
  });
  return (
    <div>
      <div class="actions" data-testid="env-actions">
        {buttons.length > 0 ? buttons : <span class="muted">No action is available in this status.</span>}
      </div>
      {outcome ? (
        <p class={outcome.error ? 'error-box' : 'note-box'} data-testid="action-outcome">
          {outcome.message}
          {outcome.deployment ? (
            <>
              {' '}
              · <Link href={`/deployments/${outcome.deployment}`}>follow it</Link>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}
