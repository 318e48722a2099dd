import type { Commands } from '../../../contracts/protocol.js';

/** The fork kind's parameters, set by the API: the version forked (a healthy snapshot). */
export interface ForkParams {
  readonly version: string;
}

export interface ForkState {
  host?: string;
  clone?: Commands['env.fork']['result'];
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as ForkParams;
export const stateOf = (s: Record<string, unknown>) => s as ForkState;
