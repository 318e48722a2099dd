/**
 * The domain vocabulary (DESIGN §2). `as const` arrays are the source of the unions, so a new
 * status or kind fails the build wherever a `Record<…>` must handle it.
 */
import type { EdgeProviderError } from './env-edge.js';
import type { ClusterFacts } from './kubernetes.js';
import type { Spec } from './spec.js';

export const DEPLOYMENT_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'rolled_back'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const PHASE_STATUSES = ['pending', 'running', 'ok', 'failed', 'skipped'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

/** Seed 002's env status vocabulary. */
export const ENV_STATUSES = [
  'planning',
  'awaiting_approval',
  'deploying',
  'running',
  'degraded',
  'failed',
  'upgrading',
  'stopping',
  'stopped',
  'tearing_down',
  'torn_down',
  'separated',
] as const;
export type EnvStatus = (typeof ENV_STATUSES)[number];

export const ENV_STAGES = ['production', 'preview', 'fork', 'verify', 'sandbox'] as const;
export type EnvStage = (typeof ENV_STAGES)[number];

export const HOST_STATUSES = ['pending', 'connected', 'degraded', 'disconnected', 'deprovisioning', 'removed'] as const;
export type HostStatus = (typeof HOST_STATUSES)[number];

/** Operation kinds (seed 000 + DESIGN §4) and their phases, in execution order. */
export const KIND_PHASES = {
  deploy: ['resolve', 'place', 'provision', 'join', 'prepare', 'start', 'health', 'warm', 'snapshot', 'ingress', 'verdict'],
  fork: ['place', 'clone', 'health', 'verdict'],
  snapshot: ['snapshot', 'health', 'verdict'],
  rollback: ['restore', 'health', 'verdict'],
  verify: ['stop', 'collect', 'snapshot', 'clone', 'grade', 'verdict'],
  destroy: ['teardown', 'verdict'],
  promote: ['gate.fork', 'gate.consistency', 'gate.replay', 'gate.invariants', 'gate.soak', 'apply', 'verdict'],
  stop: ['stop', 'verdict'],
  start: ['start', 'health', 'verdict'],
  separate: ['release', 'verdict'],
  move: ['place', 'snapshot', 'transfer', 'start', 'health', 'switch', 'retire', 'verdict'],
} as const satisfies Record<string, readonly string[]>;
export type DeploymentKind = keyof typeof KIND_PHASES;
export type PhaseName<K extends DeploymentKind = DeploymentKind> = (typeof KIND_PHASES)[K][number];

export type Evidence = Record<string, unknown> | null;

export interface Phase {
  readonly name: string;
  readonly status: PhaseStatus;
  readonly evidence: Evidence;
  readonly started_at: string | null;
  readonly finished_at: string | null;
}

export interface Deployment {
  readonly id: string;
  readonly kind: DeploymentKind;
  readonly env: string;
  readonly status: DeploymentStatus;
  readonly error: string | null;
  readonly created_at: string;
  readonly finished_at: string | null;
  readonly phases: readonly Phase[];
  /** Only while `pending`: what it waits for (an older deployment of its env, its plan's approval …). */
  readonly waiting?: string;
}

export interface Endpoint {
  readonly service: string;
  /** On the host: `http://127.0.0.1:<port>` (DESIGN §11). */
  readonly url: string;
  /** The URLs of the service's hostnames, when the edge published any (issue 12). */
  readonly public?: readonly string[];
}

/** Target kinds an env can run on (seed 002). */
export const ENV_TARGETS = ['host', 'kubernetes', 'aws_ecs'] as const;
export type EnvTarget = (typeof ENV_TARGETS)[number];

/** How denv acts in an AWS account (seed 002's `aws_account` target): with keys the team gave
 *  (`keys`), by assuming a role the team made (`role`), or in an account denv had the operator's
 *  AWS Organization create (`vended`). */
export const AWS_ACCOUNT_KINDS = ['keys', 'role', 'vended'] as const;
export type AwsAccountKind = (typeof AWS_ACCOUNT_KINDS)[number];
/** `vending` while Organizations makes a vended account; `failed` when it could not (`failure_reason`). */
export const AWS_ACCOUNT_STATES = ['ready', 'vending', 'failed'] as const;
export type AwsAccountState = (typeof AWS_ACCOUNT_STATES)[number];

/** An AWS account a team's aws_ecs envs run in (`GET /v1/aws-accounts`); its keys are never shown. */
export interface AwsAccount {
  readonly id: string;
  readonly name: string;
  readonly region: string;
  readonly kind: AwsAccountKind;
  /** Only a `ready` account takes envs. */
  readonly state: AwsAccountState;
  /** The 12-digit account id, once known (role: from its ARN; vended: once made; keys: null). */
  readonly account_id: string | null;
  /** The role denv assumes (role; vended once made). */
  readonly role_arn: string | null;
  /** role: the sts:ExternalId denv sends, made by denv; the role's trust policy must require it. */
  readonly external_id: string | null;
  /** role: the trust policy the role needs (the operator's account may assume it with `external_id`). */
  readonly trust_policy: Readonly<Record<string, unknown>> | null;
  /** vended: the new account's root email. */
  readonly email: string | null;
  /** failed: why (AWS's reason, e.g. EMAIL_ALREADY_EXISTS). */
  readonly failure_reason: string | null;
  /** Set when an env on it was separated: the operator hands the account over (seed 002), nothing automatic. */
  readonly handover_requested_at: string | null;
  /** An AWS-compatible API; null: AWS itself. */
  readonly endpoint: string | null;
  readonly created_at: string;
}

export interface Env {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly stage: EnvStage;
  readonly status: EnvStatus;
  readonly current_version: string | null;
  readonly parent_version: string | null;
  readonly host: string | null;
  /** Where it runs: `host` (an agent's process/docker runtimes), `kubernetes` (a cluster agent, `host`
   *  naming it) or `aws_ecs` (ECS Fargate in the AWS account `aws_account`). */
  readonly target: EnvTarget;
  readonly aws_account: string | null;
  readonly endpoints: readonly Endpoint[];
  readonly last_error: string | null;
  readonly created_at: string;
  /** The env on the edge (issue 12): null when it has no routes or names. `degraded`: a provider failed; the edge sweep retries. */
  readonly edge: EnvEdge | null;
}

export interface EnvEdge {
  readonly status: 'ok' | 'degraded';
  readonly names: readonly string[];
  readonly proxy: { readonly provider: string; readonly status: string; readonly error?: EdgeProviderError };
  readonly dns: { readonly provider: string; readonly status: string; readonly addresses: readonly string[]; readonly error?: EdgeProviderError };
  readonly applied_at: string;
}

export interface Version {
  readonly id: string;
  readonly env: string;
  readonly number: number;
  readonly healthy: boolean;
  readonly snapshot: string | null;
  /** When snapshot retention deleted the version's snapshot (null: not pruned); it can then no longer be rolled back to or forked. */
  readonly snapshot_pruned_at?: string | null;
  readonly services: Spec['services'];
  readonly volumes: Spec['volumes'];
  readonly created_at: string;
}

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly team: string;
  readonly compose: string | null;
  /** The linked repository (DESIGN "Source"), its default branch and where its Compose file is. */
  readonly repo: string | null;
  readonly branch: string | null;
  readonly compose_path: string;
  /** A push to `branch` deploys it (POST /v1/hooks/github). */
  readonly auto_upgrade: boolean;
  /** Whether a webhook secret is set (never the secret). */
  readonly webhook_secret: boolean;
  /** The kind of credentials set for the repository, never the secret. */
  readonly git_credentials: { readonly kind: 'token' | 'ssh_key' } | null;
  /** The private registry its images are pulled from (AWS ECS) and the user name; never the password. */
  readonly registry_credentials: { readonly server: string; readonly username: string } | null;
  /** The planner of its kubernetes envs: null, the deterministic one; an LLM endpoint (its key never shown). */
  readonly planner: { readonly kind: 'llm'; readonly url: string; readonly model: string } | null;
  readonly approval: 'auto' | 'required';
  /** Deploys must carry a signed envelope (DESIGN §7); the agents verify it with their own keys. */
  readonly require_signed: boolean;
  /** The base domain of its envs' hostnames (`<env>.<project>.<base>`); null: the team's (`PUT /v1/edge`). */
  readonly base_domain: string | null;
  readonly created_at: string;
}

export interface HostFacts {
  readonly hostname: string;
  readonly platform: string;
  readonly arch: string;
  readonly runtimes: readonly string[];
  /** 'none': a Kubernetes cluster agent. */
  readonly dataset_driver: 'btrfs' | 'copy' | 'none';
  readonly agent_version: string;
  /** Where the host's envs are published in DNS (agent config `public_ip`, else detected); absent from agents before issue 12. */
  readonly public_ip?: string[];
  /** The address this host's services answer on for other machines (`denv agent --address`);
   *  absent: 127.0.0.1, this machine only. Env endpoints use it. */
  readonly address?: string;
  /** The machine's CPUs and memory (bytes), for placement; absent from agents before issue 14. */
  readonly cpus?: number;
  readonly memory_bytes?: number;
  /** The disk that holds the agent's datasets: its size and what is free (refreshed by heartbeats). */
  readonly disk_bytes?: number;
  readonly disk_free_bytes?: number;
  /** Set by a Kubernetes cluster agent (`runtimes: ['kubernetes']`): what the planner plans for. */
  readonly cluster?: ClusterFacts;
}

export interface Host {
  readonly id: string;
  readonly name: string;
  readonly team: string;
  readonly kind: 'sidecar' | 'provider';
  /** The cloud that made it (a `provider` host), by name; null for a sidecar. */
  readonly cloud: string | null;
  readonly status: HostStatus;
  readonly facts: HostFacts | null;
  readonly last_heartbeat_at: string | null;
  /** When it was drained (`denv hosts drain`): it takes no new env; null when it takes them. */
  readonly drained_at: string | null;
  /** Envs placed on it that are not torn down or separated. */
  readonly envs: number;
  readonly created_at: string;
}

export interface DenvEvent {
  readonly id: number;
  readonly subject: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly at: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}
