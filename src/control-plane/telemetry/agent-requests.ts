/**
 * Read-only requests to an env's agent (`logs.request`, `status.refresh`). They go through the
 * gateway's command table like every command — so they reach the host whichever replica holds its
 * socket — but belong to no deployment, fail at once when the host is not connected, and are
 * bounded by a short timeout: telemetry is worth nothing late. Their rows are deleted by the
 * telemetry sweep after a few minutes.
 */
import { randomUUID } from 'node:crypto';
import { DenvError } from '../../contracts/errors.js';
import type { Commands } from '../../contracts/protocol.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';

/** `kube.live`: the planner's read of a cluster env's objects (targets/kubernetes/plan-cluster-env.ts). */
export const TELEMETRY_KINDS = ['logs.request', 'status.refresh', 'env.snapshots', 'kube.live'] as const;
export type TelemetryKind = (typeof TELEMETRY_KINDS)[number];

export const AGENT_REQUEST_TIMEOUT_MS = 5000;

export async function askAgent<K extends TelemetryKind>(agents: AgentGateway, host: string | null, kind: K, payload: Commands[K]['payload'], timeoutMs = AGENT_REQUEST_TIMEOUT_MS): Promise<Commands[K]['result']> {
  if (!host) throw new DenvError('AGENT_UNREACHABLE', 'the env is not placed on a host');
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await agents.call(host, kind, payload, { deployment: null, key: `${kind}:${randomUUID()}`, signal, requireConnected: true });
  } catch (err) {
    if (signal.aborted) throw new DenvError('TIMEOUT', `host ${host} did not answer ${kind} within ${timeoutMs} ms`);
    throw err;
  }
}
