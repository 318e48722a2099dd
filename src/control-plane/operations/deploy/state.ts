/** What deploy phases leave for later phases in the deployment's resumable state. */
import type { EnvEdgeResult } from '../../../contracts/env-edge.js';
import type { Envelope } from '../../../contracts/envelope.js';
import type { EnvCreateResult } from '../../../contracts/protocol.js';
import type { Spec } from '../../../contracts/spec.js';
import type { DesiredEdge } from '../../edge/desired-edge.js';

export interface DeployParams {
  readonly spec: Spec;
  readonly warm: readonly string[] | null;
  readonly target: { readonly host?: string; readonly cloud?: string; readonly aws_account?: string } | null;
  /** A signed deploy's envelope, relayed to the agent as received (never shown in evidence or events). Deployments stored before `envelopes`. */
  readonly envelope?: Envelope;
  /** One envelope per image service, relayed as received (never shown in evidence or events). */
  readonly envelopes?: readonly Envelope[];
}

export interface DeployState {
  version?: string;
  number?: number;
  previous_version?: string | null;
  host?: string | null;
  /** Set by provision: the machine made for this deployment, which join waits for. */
  machine?: string;
  create?: EnvCreateResult;
  snapshot?: string;
  /** Set by ingress when it sent the env's routes: verdict drains the old version and shows `public` URLs from it. */
  ingress?: IngressState;
}

export interface IngressState {
  readonly desired: DesiredEdge;
  readonly result: EnvEdgeResult;
}

export const paramsOf = (p: Record<string, unknown>) => p as unknown as DeployParams;
export const stateOf = (s: Record<string, unknown>) => s as DeployState;
