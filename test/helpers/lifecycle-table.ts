/**
 * The env lifecycle table (seed 002) as a test, for any target: for every (status, action) pair,
 * an env is brought to that status by the target's real agent; an allowed action reaches the
 * outcome the table says, a refused one answers 409 naming the status and changes nothing.
 *
 * A target's test file supplies a `LifecycleTarget` (how to reach each status, how to let held
 * work go on) and calls `lifecycleTable(target)` inside its `describe`; the rows and their checks
 * are the same on every target — that is the point.
 */
import { expect, it } from 'vitest';
import type { Env, EnvStatus } from '../../src/contracts/domain.js';
import { ENV_STATUSES } from '../../src/contracts/domain.js';
import { ACTION_FROM, USER_ACTIONS, type UserAction } from '../../src/control-plane/lifecycle/state-machine.js';
import { waitFor, type Api, type ApiResponse } from './api.js';

/** Where an allowed action ends once its work is done. */
export const OUTCOME: Record<UserAction, EnvStatus | 'deleted' | 'planned'> = {
  approve: 'running',
  replan: 'planned',
  stop: 'stopped',
  start: 'running',
  teardown: 'torn_down',
  separate: 'separated',
  delete_record: 'deleted',
};

/** The guidance every replan of the table sends; the new plan must carry it. */
export const GUIDANCE = 'keep it on one host';

/** What the rows need of a control plane's API (the same on every target). */
export function lifecycleApi(api: () => Api) {
  const env = async (id: string): Promise<Env> => (await api().get(`/v1/envs/${id}`)).body;
  return {
    env,
    statusIs: (id: string, s: EnvStatus, timeoutMs = 30_000) => waitFor(async () => (await env(id)).status === s, timeoutMs, `env ${id} to be ${s}`),
    deploymentCount: async (id: string): Promise<number> => (await api().get(`/v1/deployments?env=${id}`)).body.items.length,
    act: (id: string, action: UserAction): Promise<ApiResponse> =>
      action === 'delete_record'
        ? api().req('DELETE', `/v1/envs/${id}/record`)
        : api().post(`/v1/envs/${id}/${action}`, action === 'replan' ? { guidance: GUIDANCE } : {}),
  };
}

/** The statuses every target reaches the same way — an action on a running env, or on a deploy held
 *  in `deploying` (stopping, tearing_down) — given how the target reaches those two. */
export function reachedByActions(api: () => Api, from: { running: () => Promise<string>; deploying: () => Promise<string> }): Pick<Record<EnvStatus, () => Promise<string>>, 'stopping' | 'stopped' | 'tearing_down' | 'torn_down' | 'separated'> {
  const { env, statusIs, act } = lifecycleApi(api);
  /** An action on a held deploy: the env shows its transient status at once. */
  const onHeld = async (action: UserAction, status: EnvStatus) => {
    const id = await from.deploying();
    expect((await act(id, action)).status).toBe(202);
    expect((await env(id)).status).toBe(status);
    return id;
  };
  const onRunning = async (action: UserAction, status: EnvStatus) => {
    const id = await from.running();
    await act(id, action);
    await statusIs(id, status);
    return id;
  };
  return {
    stopping: () => onHeld('stop', 'stopping'),
    stopped: () => onRunning('stop', 'stopped'),
    tearing_down: () => onHeld('teardown', 'tearing_down'),
    torn_down: () => onRunning('teardown', 'torn_down'),
    separated: () => onRunning('separate', 'separated'),
  };
}

export interface LifecycleTarget {
  /** The control plane's API; read when the rows run (after the test file's beforeAll). */
  readonly api: () => Api;
  /** A fresh env in each status (its id). A transient status (deploying, upgrading, stopping,
   *  tearing_down) and planning are held until the env's gate opens. */
  readonly reach: Readonly<Record<EnvStatus, () => Promise<string>>>;
  /** Lets the held work of env `id` go on; nothing when it holds none. */
  openGate(id: string): void;
  /** How long an action may take to reach its outcome (default 30 s). */
  readonly outcomeTimeoutMs?: number;
  /** How long one row may take (default: vitest's testTimeout). */
  readonly rowTimeoutMs?: number;
}

/** Registers one test per status (`from <status>`) in the calling `describe`. */
export function lifecycleTable(target: LifecycleTarget): void {
  const { env, statusIs, deploymentCount, act } = lifecycleApi(target.api);
  const timeout = target.outcomeTimeoutMs ?? 30_000;

  it.each(ENV_STATUSES.map((s) => [s]))('from %s', async (status) => {
    const api = target.api();
    const allowed = USER_ACTIONS.filter((a) => (ACTION_FROM[a] as readonly string[]).includes(status));
    const refused = USER_ACTIONS.filter((a) => !allowed.includes(a));

    // Refused actions: one env, every refused action answers 409 naming the status, nothing changes.
    const shared = await target.reach[status]();
    const before = { env: await env(shared), deployments: await deploymentCount(shared) };
    for (const action of refused) {
      const res = await act(shared, action);
      expect(res.status, `${action} from ${status}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_TRANSITION');
      expect(res.body.error.message).toContain(`it is ${status}`);
    }
    expect((await env(shared)).status).toBe(before.env.status);
    expect(await deploymentCount(shared)).toBe(before.deployments);
    target.openGate(shared);

    // Allowed actions: a fresh env each, acted on at once, then followed to the outcome.
    await Promise.all(
      allowed.map(async (action) => {
        const id = await target.reach[status]();
        const res = await act(id, action);
        target.openGate(id);
        expect(res.status, `${action} from ${status}: ${JSON.stringify(res.body)}`).toBe(action === 'delete_record' ? 200 : 202);
        const outcome = OUTCOME[action];
        if (outcome === 'deleted') {
          expect((await api.get(`/v1/envs/${id}`)).status).toBe(404);
        } else if (outcome === 'planned') {
          expect(res.body.env.status).toBe('planning');
          // the planner planned it again: a plan_ready after the replan_requested
          await waitFor(async () => {
            const types = (await api.get(`/v1/events?subject=env:${id}&limit=1000`)).body.items.map((e: { type: string }) => e.type);
            return types.lastIndexOf('plan_ready') > types.lastIndexOf('replan_requested');
          }, timeout, `${id} planned again`);
          // The newest plan is the replan's, made with its guidance (approved by policy unless the project requires approval).
          const [plan] = (await api.get(`/v1/envs/${id}/plans`)).body.items;
          expect(plan).toMatchObject({ guidance: GUIDANCE, instructions: expect.stringContaining(GUIDANCE), status: status === 'awaiting_approval' ? 'ready' : 'approved' });
        } else {
          await statusIs(id, outcome, timeout);
        }
      }),
    );
  }, target.rowTimeoutMs);
}
