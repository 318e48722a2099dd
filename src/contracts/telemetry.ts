/**
 * Telemetry (DESIGN §10, seed 002 "Telemetry"): what agents push about the workloads they run, and
 * what the API answers about them. No I/O. The zod schemas validate the agent → control plane
 * frames (protocol.ts puts them in its `agentMessage` union); the interfaces are the API's shapes.
 *
 * A *workload* is one service of one env. Its log lines, metric samples and incidents name the
 * service and the version whose process produced them.
 */
import { z } from 'zod';

/** At most this many log lines are kept per workload, by the agent and by the control plane. */
export const LOG_RING_LINES = 200;
/** A log line longer than this is cut (the rest is dropped, marked with `…`). */
export const LOG_LINE_MAX_CHARS = 4000;

/** One line a service printed (stdout and stderr share one file). `offset` is where the line
 *  starts in the version's log file: with the workload it identifies the line, so a line sent
 *  twice (pushed while someone watched, and again in a later snapshot) is stored once. */
export const logLine = z.object({
  service: z.string(),
  version: z.string(),
  offset: z.number().int().min(0),
  at: z.string(),
  text: z.string().max(LOG_LINE_MAX_CHARS + 1),
});
export type LogLine = z.infer<typeof logLine>;

/** One sample of one workload: CPU over the last interval (percent of one core, summed over the
 *  service's process group), resident memory, the memory limit when its cgroup sets one, and the
 *  HTTP availability probe of its endpoint (`up` null when the service is not probed). */
export const metricSample = z.object({
  service: z.string(),
  version: z.string(),
  at: z.string(),
  cpu_pct: z.number().nullable(),
  mem_bytes: z.number().nullable(),
  mem_limit_bytes: z.number().nullable(),
  up: z.boolean().nullable(),
  latency_ms: z.number().nullable(),
  detail: z.string().nullable(),
});
export type MetricSample = z.infer<typeof metricSample>;

/**
 * A recurring error of one workload (seed 002 "Incidents"). `count` is how often the agent process
 * identified by `epoch` has seen it since `first_at`: the control plane adds the growth of `count`
 * within one epoch, and the whole `count` of a new epoch (a restarted agent counts afresh), so a
 * report sent twice is not counted twice.
 */
export const incidentReport = z.object({
  env: z.string(),
  service: z.string(),
  fingerprint: z.string().min(1).max(64),
  pattern: z.string().max(1000),
  sample: z.string().max(LOG_LINE_MAX_CHARS + 1),
  count: z.number().int().min(1),
  epoch: z.string().min(1).max(64),
  first_at: z.string(),
  last_at: z.string(),
});
export type IncidentReport = z.infer<typeof incidentReport>;

export const INCIDENT_STATUSES = ['open', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** An incident as the API shows it. `improvement` is the bug filed for it by the monitor sweep. */
export interface Incident {
  readonly id: string;
  readonly env: string;
  readonly project: string;
  readonly service: string;
  readonly fingerprint: string;
  readonly pattern: string;
  readonly sample: string;
  readonly count: number;
  readonly status: IncidentStatus;
  readonly improvement: string | null;
  readonly first_at: string;
  readonly last_at: string;
}

export const IMPROVEMENT_KINDS = ['bug', 'feature', 'chore'] as const;
export type ImprovementKind = (typeof IMPROVEMENT_KINDS)[number];

/** An improvement request on a project (seed 002: incidents are filed as kind `bug`). */
export interface Improvement {
  readonly id: string;
  readonly project: string;
  readonly kind: ImprovementKind;
  readonly title: string;
  readonly body: string;
  readonly status: 'open' | 'approved' | 'done' | 'dismissed';
  /** What filed it, e.g. `incident`; and the incident's id. */
  readonly source: string | null;
  readonly incident: string | null;
  readonly created_at: string;
}

/** `GET /v1/envs/{env}/uptime`: per workload, the share of probes that found it up in the window. */
export interface WorkloadUptime {
  readonly service: string;
  readonly probes: number;
  readonly up: number;
  /** up / probes × 100, or null with no probe in the window. */
  readonly uptime_pct: number | null;
  readonly last: { readonly at: string; readonly up: boolean; readonly latency_ms: number | null; readonly detail: string | null } | null;
  /** Since when it has been down, when the latest probe found it down. */
  readonly down_since: string | null;
}
