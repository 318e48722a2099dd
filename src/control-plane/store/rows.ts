/** Row → API shape mappers. Timestamps leave the store as ISO strings. */
import type { Deployment, DeploymentKind, DeploymentStatus, DenvEvent, Endpoint, Env, EnvEdge, EnvStage, EnvStatus, EnvTarget, Host, HostFacts, HostStatus, Phase, Project, Version } from '../../contracts/domain.js';
import type { RegistryCredentials } from '../../contracts/registry-credentials.js';
import type { GitCredentials } from '../../contracts/source.js';
import type { Spec } from '../../contracts/spec.js';

export const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());
const isoReq = (v: unknown): string => new Date(v as string).toISOString();

export interface EnvRow {
  id: string; team: string; project: string; name: string; stage: string; status: string;
  current_version: string | null; parent_version: string | null; host: string | null;
  endpoints: Endpoint[]; last_error: string | null; created_at: unknown; updated_at: unknown;
  live_status: Record<string, unknown> | null; planner_attempts: number;
  /** Where the env runs (migration 15): its phases and planner follow it. */
  target: EnvTarget;
  aws_account?: string | null;
  /** control-plane/edge/env-edge-record.ts; absent from rows read before migration 9. */
  edge?: EnvEdge | null;
}
/** The columns toEnv reads: a list of envs need not carry (and parse, and copy across threads) their live status. */
export const ENV_VIEW_COLUMNS = 'id, team, project, name, stage, status, current_version, parent_version, host, endpoints, last_error, created_at, updated_at, planner_attempts, edge, target, aws_account';
export const toEnv = (r: EnvRow): Env => ({
  id: r.id, name: r.name, project: r.project, stage: r.stage as EnvStage, status: r.status as EnvStatus,
  current_version: r.current_version, parent_version: r.parent_version, host: r.host, target: r.target ?? 'host', aws_account: r.aws_account ?? null,
  endpoints: r.endpoints ?? [], last_error: r.last_error, created_at: isoReq(r.created_at),
  edge: r.edge ? { status: r.edge.status, names: r.edge.names, proxy: r.edge.proxy, dns: r.edge.dns, applied_at: r.edge.applied_at } : null,
});

export interface VersionRow { id: string; env: string; number: number; spec: Spec; healthy: boolean; snapshot: string | null; snapshot_pruned_at?: unknown; created_at: unknown }
export const toVersion = (r: VersionRow): Version => ({
  id: r.id, env: r.env, number: r.number, healthy: r.healthy, snapshot: r.snapshot, snapshot_pruned_at: iso(r.snapshot_pruned_at),
  services: r.spec.services, volumes: r.spec.volumes, created_at: isoReq(r.created_at),
});

export interface DeploymentRow {
  id: string; team: string; env: string; kind: DeploymentKind; status: DeploymentStatus; error: string | null;
  phases: Phase[]; params: Record<string, unknown>; state: Record<string, unknown>;
  lease_owner: string | null; lease_until: unknown; created_at: unknown; started_at: unknown; finished_at: unknown;
}
/** The columns toDeployment reads: not `params` (which carries the whole Compose spec) nor `state`. */
export const DEPLOYMENT_VIEW_COLUMNS = 'id, team, env, kind, status, error, phases, created_at, finished_at';
export const toDeployment = (r: Pick<DeploymentRow, 'id' | 'kind' | 'env' | 'status' | 'error' | 'created_at' | 'finished_at' | 'phases'>): Deployment => ({
  id: r.id, kind: r.kind, env: r.env, status: r.status, error: r.error,
  created_at: isoReq(r.created_at), finished_at: iso(r.finished_at), phases: r.phases,
});

export interface ProjectRow {
  id: string; team: string; name: string; compose: unknown; repo: string | null; branch: string | null; approval: string; require_signed: boolean; base_domain: string | null;
  compose_path: string; auto_upgrade: boolean; webhook_secret: string | null; git_credentials: GitCredentials | null; created_at: unknown;
  /** Migration 15: the LLM planner of its kubernetes envs (key in clear, never shown). */
  planner?: ProjectPlanner | null;
  /** Migration 18: the login of its images' private registry (password in clear, never shown). */
  registry_credentials?: RegistryCredentials | null;
}
/** A project's LLM planner as stored (`PATCH /v1/projects/{p}` planner). */
export interface ProjectPlanner { readonly kind: 'llm'; readonly url: string; readonly model: string; readonly key: string }
/** A project as the API shows it: of its secrets only whether they are set (and the credentials' kind). */
export const toProject = (r: ProjectRow): Project => ({
  id: r.id, name: r.name, team: r.team, compose: r.compose === null ? null : JSON.stringify(r.compose),
  repo: r.repo, branch: r.branch, compose_path: r.compose_path, auto_upgrade: r.auto_upgrade, webhook_secret: r.webhook_secret !== null,
  git_credentials: r.git_credentials ? { kind: r.git_credentials.kind } : null,
  planner: r.planner ? { kind: r.planner.kind, url: r.planner.url, model: r.planner.model } : null,
  registry_credentials: r.registry_credentials ? { server: r.registry_credentials.server, username: r.registry_credentials.username } : null,
  approval: r.approval as Project['approval'], require_signed: r.require_signed, base_domain: r.base_domain, created_at: isoReq(r.created_at),
});

export interface HostRow { id: string; team: string; name: string; kind: string; status: string; facts: HostFacts | null; last_heartbeat_at: unknown; drained_at?: unknown; created_at: unknown; cloud?: string | null; envs?: string | number }
/** The hosts columns a listing reads, with the name of the cloud that made each and how many live envs are placed on it. */
export const HOST_VIEW_COLUMNS =
  'id, team, name, kind, status, facts, last_heartbeat_at, drained_at, created_at, (select c.name from machines m join clouds c on c.id = m.cloud where m.id = hosts.machine) as cloud, ' +
  "(select count(*) from envs e where e.host = hosts.id and e.status not in ('torn_down', 'separated')) as envs";
export const toHost = (r: HostRow): Host => ({
  id: r.id, name: r.name, team: r.team, kind: r.kind as Host['kind'], cloud: r.cloud ?? null, status: r.status as HostStatus,
  facts: r.facts, last_heartbeat_at: iso(r.last_heartbeat_at), drained_at: iso(r.drained_at), envs: Number(r.envs ?? 0), created_at: isoReq(r.created_at),
});

export interface EventRow { id: number; subject: string; type: string; data: Record<string, unknown>; at: unknown }
export const toEvent = (r: EventRow): DenvEvent => ({ id: Number(r.id), subject: r.subject, type: r.type, data: r.data, at: isoReq(r.at) });
