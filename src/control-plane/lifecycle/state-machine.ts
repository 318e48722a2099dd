/**
 * The env lifecycle (seed 002) as data: which user action is allowed from which status, where it
 * leads, and which statuses the background sweeps move between. `docs/lifecycle.md` draws this
 * table; a test keeps the two in step. Nothing else in the code decides whether a transition is
 * allowed.
 */
import type { EnvStatus } from '../../contracts/domain.js';

export const USER_ACTIONS = ['approve', 'replan', 'stop', 'start', 'teardown', 'separate', 'delete_record'] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

export const TERMINAL_STATUSES = ['torn_down', 'separated'] as const satisfies readonly EnvStatus[];

const NON_TERMINAL = [
  'planning', 'awaiting_approval', 'deploying', 'running', 'degraded', 'failed', 'upgrading', 'stopping', 'stopped', 'tearing_down',
] as const satisfies readonly EnvStatus[];

/** For each action: the statuses it is allowed from. */
export const ACTION_FROM = {
  approve: ['awaiting_approval'],
  replan: ['awaiting_approval', 'failed', 'running', 'degraded', 'stopped'],
  // A working stop is a product invariant: allowed from every non-terminal status.
  stop: NON_TERMINAL,
  start: ['stopped'],
  teardown: NON_TERMINAL,
  separate: NON_TERMINAL,
  delete_record: ['torn_down', 'separated', 'failed'],
} as const satisfies Record<UserAction, readonly EnvStatus[]>;

/** The status an allowed action sets at once (intent); `approve` depends on whether the env has a
 *  current version (`deploying` for a first deploy, `upgrading` otherwise). `delete_record` removes the row. */
export const ACTION_TO = {
  approve: 'deploying',
  replan: 'planning',
  stop: 'stopping',
  start: 'deploying',
  teardown: 'tearing_down',
  separate: 'separated',
  delete_record: null,
} as const satisfies Record<UserAction, EnvStatus | null>;

/** Transitions the sweeps make (outcomes of the work, `operations/env-status.ts`; the monitor's
 *  flips; the planner's results). A test checks the outcomes against this table. */
export const SWEEP_TRANSITIONS = {
  planning: ['awaiting_approval', 'deploying', 'upgrading', 'failed'],
  awaiting_approval: [],
  deploying: ['running', 'failed'],
  upgrading: ['running', 'failed'],
  running: ['degraded'],
  degraded: ['running'],
  // a rollback to a healthy snapshot brings a failed env back
  failed: ['running'],
  stopping: ['stopped', 'failed'],
  stopped: [],
  tearing_down: ['torn_down', 'failed'],
  torn_down: [],
  separated: [],
} as const satisfies Record<EnvStatus, readonly EnvStatus[]>;

export function allowedActions(status: EnvStatus): UserAction[] {
  return USER_ACTIONS.filter((a) => (ACTION_FROM[a] as readonly EnvStatus[]).includes(status));
}

export function isAllowed(action: UserAction, status: EnvStatus): boolean {
  return (ACTION_FROM[action] as readonly EnvStatus[]).includes(status);
}

export function isTerminal(status: EnvStatus): boolean {
  return (TERMINAL_STATUSES as readonly EnvStatus[]).includes(status);
}

/** Operations on an env's data (seed 000 kinds that are not lifecycle actions) and the statuses
 *  they may start from; any other status answers 409. */
export const OPERATION_FROM = {
  snapshot: ['running', 'degraded'],
  // A fork copies a stored snapshot: the source need not be serving.
  fork: ['running', 'degraded', 'stopped', 'failed'],
  rollback: ['running', 'degraded', 'failed'],
  verify: ['running', 'degraded'],
  // A move starts the env on another host from a snapshot of it serving here.
  move: ['running', 'degraded'],
} as const satisfies Record<string, readonly EnvStatus[]>;
