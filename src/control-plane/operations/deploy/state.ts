/** What deploy phases leave for later phases in the deployment's resumable state. */
import type { EnvCreateResult } from '../../../contracts/protocol.js';
import type { Spec } from '../../../contracts/spec.js';

export interface DeployParams {
  readonly spec: Spec;
  readonly warm: readonly string[] | null;
  readonly target: { readonly host?: string; readonly cloud?: string } | null;
}

export interface DeployState {
  version?: string;
  number?: number;
  previous_version?: string | null;
  host?: string | null;
  create?: EnvCreateResult;
  snapshot?: string;
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as DeployParams;
export const stateOf = (s: Record<string, unknown>) => s as DeployState;
