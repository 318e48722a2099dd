import type { Db } from './db.js';

/**
 * The schema, as an ordered list of migrations. A migration is never edited once landed; add a new
 * one. Each runs in its own transaction and is recorded in `schema_migrations`.
 */
export const MIGRATIONS: readonly { readonly id: number; readonly name: string; readonly sql: string }[] = [
  {
    id: 1,
    name: 'foundation',
    sql: `
-- created_at is timestamptz(3): list cursors carry milliseconds, so rows must not hold more.
create table teams (
  id text primary key,
  name text not null unique,
  created_at timestamptz(3) not null default now()
);
create table api_tokens (
  id text primary key,
  team text not null references teams(id),
  name text not null,
  hash text not null unique,
  admin boolean not null default false,
  created_at timestamptz(3) not null default now(),
  revoked_at timestamptz
);
create table projects (
  id text primary key,
  team text not null references teams(id),
  name text not null,
  compose jsonb,
  repo text,
  branch text,
  approval text not null default 'auto',
  created_at timestamptz(3) not null default now(),
  unique (team, name)
);
create table hosts (
  id text primary key,
  team text not null references teams(id),
  name text not null,
  kind text not null default 'sidecar',
  status text not null default 'pending',
  facts jsonb,
  credential_hash text unique,
  last_heartbeat_at timestamptz,
  created_at timestamptz(3) not null default now()
);
create table enrollment_keys (
  id text primary key,
  team text not null references teams(id),
  hash text not null unique,
  expires_at timestamptz not null,
  single_use boolean not null default false,
  used_at timestamptz,
  created_at timestamptz(3) not null default now()
);
create table envs (
  id text primary key,
  team text not null references teams(id),
  project text not null references projects(id),
  name text not null,
  stage text not null,
  status text not null,
  current_version text,
  parent_version text,
  host text references hosts(id),
  endpoints jsonb not null default '[]',
  last_error text,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz not null default now()
);
create unique index envs_live_name on envs (project, name) where status not in ('torn_down', 'separated');
create table versions (
  id text primary key,
  env text not null references envs(id),
  number integer not null,
  spec jsonb not null,
  healthy boolean not null default false,
  snapshot text,
  -- the deployment that created it: lets a resumed resolve phase find its own row
  deployment text,
  created_at timestamptz(3) not null default now(),
  unique (env, number)
);
create table deployments (
  id text primary key,
  team text not null references teams(id),
  env text not null references envs(id),
  kind text not null,
  status text not null,
  error text,
  phases jsonb not null,
  params jsonb not null default '{}',
  state jsonb not null default '{}',
  lease_owner text,
  lease_until timestamptz,
  created_at timestamptz(3) not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index deployments_env on deployments (env, created_at);
create index deployments_active on deployments (status) where status in ('pending', 'running');
create table commands (
  id text primary key,
  host text not null references hosts(id),
  deployment text references deployments(id),
  key text not null,
  kind text not null,
  payload jsonb not null,
  status text not null default 'pending',
  result jsonb,
  error jsonb,
  created_at timestamptz(3) not null default now(),
  sent_at timestamptz,
  finished_at timestamptz,
  unique (deployment, key)
);
create index commands_open on commands (host) where status in ('pending', 'sent');
create table events (
  id bigserial primary key,
  team text,
  subject text not null,
  type text not null,
  data jsonb not null default '{}',
  at timestamptz not null default now()
);
create index events_subject on events (subject, id);
`,
  },
  {
    id: 2,
    name: 'lifecycle',
    sql: `
-- Plans (seed 002): one row per planning of a deployment; the approved one is what dispatch applies.
create table env_plans (
  id text primary key,
  env text not null references envs(id) on delete cascade,
  deployment text references deployments(id) on delete cascade,
  planner text not null,
  summary text not null,
  artifact text not null,
  instructions text not null default '',
  guidance text,
  status text not null,
  actor text,
  created_at timestamptz(3) not null default now(),
  approved_at timestamptz
);
create index env_plans_env on env_plans (env, created_at);
alter table envs add column live_status jsonb;
alter table envs add column planner_attempts integer not null default 0;
alter table envs add column planner_lease_until timestamptz;
alter table hosts add column removed_at timestamptz;
-- which control-plane replica holds the host's socket (null: none); commands are routed there.
alter table hosts add column connected_to text;
`,
  },
  {
    id: 3,
    name: 'signed_deploys',
    sql: `
-- A project that requires signed deploys refuses a deploy request without an envelope (DESIGN §7).
alter table projects add column require_signed boolean not null default false;
`,
  },
  {
    id: 4,
    name: 'telemetry',
    sql: `
-- Metric samples and uptime probes pushed by agents (DESIGN §10). Bounded by time: the telemetry
-- sweep deletes samples older than the retention window (default 1 h).
create table env_samples (
  env text not null references envs(id) on delete cascade,
  service text not null,
  version text not null,
  at timestamptz(3) not null,
  cpu_pct real,
  mem_bytes bigint,
  mem_limit_bytes bigint,
  up boolean,
  latency_ms integer,
  detail text,
  primary key (env, service, at)
);
create index env_samples_at on env_samples (at);
-- The last log lines of each workload (at most 200 per env and service, pruned on insert).
-- (env, version, service, line_offset) identifies a line, so one pushed twice is stored once.
create table env_logs (
  id bigserial primary key,
  env text not null references envs(id) on delete cascade,
  service text not null,
  version text not null,
  line_offset bigint not null,
  at timestamptz(3) not null,
  text text not null,
  unique (env, version, service, line_offset)
);
create index env_logs_workload on env_logs (env, service, id);
-- Recurring errors reported by agents; the monitor sweep files each open one as an improvement.
create table incidents (
  id text primary key,
  team text not null references teams(id),
  project text not null references projects(id),
  env text not null references envs(id) on delete cascade,
  service text not null,
  fingerprint text not null,
  pattern text not null,
  sample text not null,
  count integer not null,
  epoch text not null,
  epoch_count integer not null,
  status text not null default 'open',
  improvement text,
  first_at timestamptz not null,
  last_at timestamptz not null,
  created_at timestamptz(3) not null default now(),
  unique (env, fingerprint)
);
create index incidents_unfiled on incidents (created_at) where improvement is null;
-- Improvement requests on a project (seed 002); incidents file kind 'bug'.
create table improvements (
  id text primary key,
  team text not null references teams(id),
  project text not null references projects(id),
  kind text not null,
  title text not null,
  body text not null,
  status text not null default 'open',
  source text,
  incident text,
  created_at timestamptz(3) not null default now()
);
create index improvements_project on improvements (project, created_at);
`,
  },
  {
    id: 5,
    name: 'credentials',
    sql: `
-- Issue 10: API tokens get a scope (read < deploy < admin) and an optional expiry; enrollment
-- keys are single-use unless asked otherwise, and revocable.
alter table api_tokens add column scope text not null default 'admin';
alter table api_tokens add column expires_at timestamptz;
create index api_tokens_team on api_tokens (team, created_at);
alter table enrollment_keys alter column single_use set default true;
alter table enrollment_keys add column revoked_at timestamptz;
alter table enrollment_keys add column name text;
create index enrollment_keys_team on enrollment_keys (team, created_at);
`,
  },
  {
    id: 6,
    name: 'snapshot_retention',
    sql: `
-- Issue 9: snapshot retention. A version whose snapshot was pruned keeps its name and gets the
-- time; an env records when the retention sweep last judged its snapshots.
alter table versions add column snapshot_pruned_at timestamptz;
alter table envs add column snapshots_swept_at timestamptz;
`,
  },
  {
    id: 7,
    name: 'idempotency_keys',
    sql: `
-- Issue 11: a POST retried with the same Idempotency-Key answers what the first one answered.
-- answer is null while the first request runs.
create table idempotency_keys (
  team text not null,
  key text not null,
  request_hash text not null,
  status integer,
  answer jsonb,
  created_at timestamptz not null default now(),
  primary key (team, key)
);
`,
  },
  {
    id: 8,
    name: 'team_edge',
    sql: `
-- Issue 12: a team's edge settings (PUT /v1/edge). proxy and dns are the provider configs as
-- providers take them (src/edge/edge-config.ts), secrets included in clear: the control plane
-- must hand them to the providers. The API shows them only through redactProxyConfig/
-- redactDnsConfig. A null column is "not set".
create table team_edge (
  team text primary key references teams(id),
  base_domain text,
  proxy jsonb,
  dns jsonb,
  updated_at timestamptz(3) not null default now()
);
`,
  },
  {
    id: 9,
    name: 'env_edge',
    sql: `
-- Issue 12: the routes and DNS names last sent to an env's host, and what the providers answered
-- (control-plane/edge/env-edge-record.ts). Teardown, stop and the edge sweep remove what is here.
alter table envs add column edge jsonb;
`,
  },
  {
    id: 10,
    name: 'project_base_domain',
    sql: `
-- Issue 12: a project's own base domain for the hostnames of its envs other than production
-- (<env>.<project>.<base>); null: the team's (team_edge.base_domain).
alter table projects add column base_domain text;
`,
  },
  {
    id: 11,
    name: 'project_source',
    sql: `
-- Issue 13: a project's linked repository (repo and branch exist since migration 1). compose_path
-- is where its Compose file lives in the repository; auto_upgrade deploys pushes to the branch.
-- webhook_secret and git_credentials are kept in clear, like the edge settings: the control plane
-- must use them (an HMAC key; a token or deploy key handed to the env's host). The API never
-- shows them (rows.ts toProject: only whether they are set, and the credentials' kind).
alter table projects add column compose_path text not null default 'compose.yaml';
alter table projects add column auto_upgrade boolean not null default false;
alter table projects add column webhook_secret text;
alter table projects add column git_credentials jsonb;
`,
  },
  {
    id: 12,
    name: 'webhook_deliveries',
    sql: `
-- Issue 13: GitHub webhook deliveries with a valid signature, by X-GitHub-Delivery: a delivery
-- GitHub sends again (a redelivery, a retry after a timeout) starts nothing twice. outcome is
-- what it did: {deployment, env} or {ignored: reason}.
create table webhook_deliveries (
  delivery text primary key,
  project text not null references projects(id) on delete cascade,
  event text not null,
  outcome jsonb,
  received_at timestamptz(3) not null default now()
);
`,
  },
  {
    id: 13,
    name: 'clouds',
    sql: `
-- Issue 14: clouds (ways to get hosts) and the machines they made. A machine is recorded before
-- its provider is asked to make it (provision resumes by finding it, never makes two for one
-- deployment); its host appears when the agent on it enrolls with the machine's own single-use
-- enrollment key. config holds the provider's settings (the API never shows secrets in it).
create table clouds (
  id text primary key,
  team text not null references teams(id),
  name text not null,
  provider text not null,
  config jsonb not null default '{}',
  deprovision text not null default 'when_empty',
  created_at timestamptz(3) not null default now(),
  unique (team, name)
);
create table machines (
  id text primary key,
  team text not null references teams(id),
  cloud text not null references clouds(id),
  deployment text unique,
  name text not null,
  ref text,
  ip text,
  status text not null default 'creating',
  host text references hosts(id),
  detail jsonb,
  created_at timestamptz(3) not null default now(),
  destroyed_at timestamptz
);
alter table enrollment_keys add column machine text references machines(id);
alter table hosts add column machine text references machines(id);
`,
  },
  {
    id: 14,
    name: 'host-drain',
    sql: `
-- Issue 14: a drained host takes no new env (place skips it); the envs on it stay and redeploy there.
alter table hosts add column drained_at timestamptz;
`,
  },
  {
    id: 15,
    name: 'env-target',
    sql: `
-- Issue 16: where an env runs — 'host' (an agent's process/docker runtimes) or 'kubernetes' (a
-- cluster agent applies its manifests). Set when the env is created, from the spec's x-denv.target.
alter table envs add column target text not null default 'host';
-- A project's planner for kubernetes envs: null = the deterministic one; {kind: 'llm', url, model, key}
-- = an OpenAI-compatible endpoint (the key kept in clear like git_credentials, shown only as set).
alter table projects add column planner jsonb;
-- AWS accounts envs run on with ECS Fargate (x-denv.target aws_ecs). Credentials kept in clear like
-- the edge settings (the control plane calls AWS with them), never shown by the API. endpoint: an
-- AWS-compatible API (tests: a local server). handover_requested_at: an env on it was separated.
create table aws_accounts (
  id text primary key,
  team text not null references teams(id),
  name text not null,
  region text not null,
  access_key_id text not null,
  secret_access_key text not null,
  session_token text,
  endpoint text,
  handover_requested_at timestamptz,
  created_at timestamptz(3) not null default now(),
  removed_at timestamptz
);
create unique index aws_accounts_name on aws_accounts (team, name) where removed_at is null;
alter table envs add column aws_account text references aws_accounts(id);
`,
  },
  {
    id: 16,
    name: 'aws-account-kinds',
    sql: `
-- Issue 16: seed 002's aws_account targets besides keys a team brings. kind 'role': denv assumes
-- role_arn with the operator's credentials (denv server --aws-operator-credentials) and external_id,
-- which denv made (never the team: the confused-deputy guard); trusted_principal is the operator's
-- account as the role's trust policy must name it. kind 'vended': denv asks the operator's AWS
-- Organization for a new account (vend_*), then assumes vend_role_name in it. state: 'ready',
-- 'vending' (Organizations is making it) or 'failed' (failure_reason says why).
alter table aws_accounts alter column access_key_id drop not null;
alter table aws_accounts alter column secret_access_key drop not null;
alter table aws_accounts add column kind text not null default 'keys';
alter table aws_accounts add column state text not null default 'ready';
alter table aws_accounts add column role_arn text;
alter table aws_accounts add column external_id text;
alter table aws_accounts add column trusted_principal text;
alter table aws_accounts add column account_id text;
alter table aws_accounts add column vend_email text;
alter table aws_accounts add column vend_account_name text;
alter table aws_accounts add column vend_role_name text;
alter table aws_accounts add column vend_request_id text;
alter table aws_accounts add column vend_started_at timestamptz;
alter table aws_accounts add column failure_reason text;
`,
  },
  {
    id: 17,
    name: 'plan-namespace',
    sql: `
-- Issue 16: the namespace a cluster plan was made for (the cluster agent's at planning). Its
-- commands name it, and an agent working in another namespace refuses them rather than apply or
-- delete there. Null for other targets and for plans made before.
alter table env_plans add column namespace text;
`,
  },
  {
    id: 18,
    name: 'project-registry-credentials',
    sql: `
-- Seed 002: the login of the private registry a project's images are pulled from on AWS ECS
-- {server, username, password}. Kept in clear like git_credentials: the control plane writes it into
-- a Secrets Manager secret of the env's account, which the task's execution role reads to pull. The
-- API shows the server and user name only, never the password.
alter table projects add column registry_credentials jsonb;
`,
  },
  {
    id: 19,
    name: 'deployment-seq',
    sql: `
-- The order deployments were inserted in. The engine runs one deployment per env at a time, the
-- oldest first; created_at alone ties for deployments made in one transaction (now() is the
-- transaction's start: a preview's fork and its deploy), and the one inserted first must run first.
-- Rows already there are numbered in the order the engine ran them by before (created_at, id).
create sequence deployments_seq_seq;
alter table deployments add column seq bigint;
update deployments d set seq = o.n from (select id, row_number() over (order by created_at, id) as n from deployments) o where o.id = d.id;
select setval('deployments_seq_seq', coalesce((select max(seq) from deployments), 0) + 1, false);
alter table deployments alter column seq set default nextval('deployments_seq_seq'), alter column seq set not null;
alter sequence deployments_seq_seq owned by deployments.seq;
`,
  },
];

/** Bring the schema up to date. On a server, an advisory lock keeps two starting replicas apart. */
export async function migrate(db: Db): Promise<{ applied: number[] }> {
  await db.exec('create table if not exists schema_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())');
  const applied: number[] = [];
  await db.tx(async (tx) => {
    if (tx.dialect === 'postgres') await tx.query('select pg_advisory_xact_lock(746321)');
    const done = new Set((await tx.query<{ id: number }>('select id from schema_migrations')).map((r) => r.id));
    for (const m of MIGRATIONS) {
      if (done.has(m.id)) continue;
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (id, name) values ($1, $2)', [m.id, m.name]);
      applied.push(m.id);
    }
  });
  return { applied };
}
