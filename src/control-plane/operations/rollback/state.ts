import type { Commands } from '../../../contracts/protocol.js';

/** The rollback kind's parameters (checked by the API: a healthy snapshot of this env). */
export interface RollbackParams {
  readonly version: string;
}

export interface RollbackState {
  previous_version?: string | null;
  restore?: Commands['env.rollback']['result'];
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as RollbackParams;
export const stateOf = (s: Record<string, unknown>) => s as RollbackState;
