import type { Commands } from '../../../contracts/protocol.js';
import type { CollectResult, VerifyRunResult } from '../../../contracts/verify.js';

/** The verify kind's parameters: `resume` lets the agent service run again once captured. */
export interface VerifyParams {
  readonly resume: boolean;
}

/** What verify's phases leave for later phases (the deployment's resumable state). */
export interface VerifyState {
  /** The env's current version at the start: its spec names the agent service and the verifier. */
  version?: string;
  agent_service?: string;
  host?: string;
  /** The capture: a new version of the env (same spec), its snapshot and collected copy. */
  capture?: string;
  collect?: CollectResult;
  /** Whether env.resume was sent (resume: true). */
  resumed?: boolean;
  grader_env?: string;
  clone?: Commands['env.fork']['result'];
  grade?: VerifyRunResult;
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as VerifyParams;
export const stateOf = (s: Record<string, unknown>) => s as VerifyState;
