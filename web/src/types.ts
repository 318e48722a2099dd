/** The API's shapes, from the contracts (type-only: nothing of the server is bundled). */
export type { AwsAccount, Deployment, DenvEvent, Env, Host, Page, Phase, Project, Version } from '../../src/contracts/domain.js';
export type { Improvement, Incident, LogLine, WorkloadUptime } from '../../src/contracts/telemetry.js';
export type { LiveWorkload } from '../../src/contracts/protocol.js';

export interface StatusView {
  readonly env: string;
  readonly name: string;
  readonly status: string;
  readonly current_version: string | null;
  readonly endpoints: readonly { service: string; url: string }[];
  readonly last_error: string | null;
  readonly host: { id: string; name: string; status: string; last_heartbeat_at: string | null } | null;
  readonly live_status: { at: string; workloads: readonly import('../../src/contracts/protocol.js').LiveWorkload[] } | null;
  readonly live_status_age_ms: number | null;
  readonly actions: readonly string[];
}

export interface Series {
  readonly service: string;
  readonly points: readonly { at: string; version: string; cpu_pct: number | null; mem_bytes: number | null; mem_limit_bytes: number | null }[];
}

export interface Plan {
  readonly id: string;
  readonly summary: string;
  readonly status: string;
  readonly guidance: string | null;
  readonly created_at: string;
}

/** `GET /v1/aws-accounts` (no keys). `handover_requested_at`: an env on it was separated; the
 *  operator hands the account over. */
