/**
 * Request schemas of the HTTP API (DESIGN §11). Every body schema is closed: an unknown field is
 * a 400 naming it, and nothing is written. The same schemas generate `/openapi.json`.
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { dnsName } from './edge-settings.js';
import { registryCredentialsSchema } from './registry-credentials.js';
import { gitCredentialsSchema } from './source.js';

export const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'expected lowercase letters, digits and -, starting with a letter or digit');
/** A Compose document, as YAML text or as the parsed object. */
export const composeBody = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);
const commandBody = z.union([z.string().min(1).max(8192), z.array(z.string().max(8192)).min(1).max(256)]);

export const createTeamBody = z.strictObject({ name: slug });
export const createTokenBody = z.strictObject({
  name: z.string().min(1).max(100),
  /** Team id or name; admin tokens only. Default: the caller's own team. */
  team: z.string().min(1).max(100).optional(),
  /** What the token may do: read < deploy < admin, at most the caller's own scope. Default: the
   *  caller's scope. Give CI `deploy`: it deploys but cannot mint tokens or enrollment keys. */
  scope: z.enum(['read', 'deploy', 'admin']).optional(),
  /** Expiry, as seconds from now or an RFC 3339 time (not both); absent: until revoked. */
  ttl: z.number().int().min(1).max(10 * 365 * 24 * 3600).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});
/** A project's linked repository (DESIGN "Source"); the control plane checks `repo`'s transport and the ref/path rules. */
const sourceFields = {
  /** https://, ssh://, user@host:path, git://, or file:// where the server allows it. */
  repo: z.string().min(1).max(2048).optional(),
  /** The default branch: what `deploy --source` without a ref and auto-upgrade follow. */
  branch: z.string().min(1).max(255).optional(),
  /** Where the Compose file is in the repository (default compose.yaml). */
  compose_path: z.string().min(1).max(1024).optional(),
  /** A push to the default branch deploys it (POST /v1/hooks/github). */
  auto_upgrade: z.boolean().optional(),
  /** The GitHub webhook's secret (HMAC key of X-Hub-Signature-256); never shown again. */
  webhook_secret: z.string().min(16, 'use at least 16 characters').max(256).optional(),
  /** An HTTPS token or an SSH deploy key for the repository; never shown again. */
  git_credentials: gitCredentialsSchema.optional(),
};
export const createProjectBody = z.strictObject({
  name: slug,
  compose: composeBody.optional(),
  approval: z.enum(['auto', 'required']).optional(),
  /** Refuse deploy requests without an `envelope` (signed image deploys only). */
  require_signed: z.boolean().optional(),
  /** The base domain of its envs' hostnames (`<env>.<project>.<base>`); absent: the team's. */
  base_domain: dnsName.optional(),
  ...sourceFields,
  /** The login of the private registry its images are pulled from on AWS ECS {server, username,
   *  password}; the password is never shown again. */
  registry_credentials: registryCredentialsSchema.optional(),
});
/** `PATCH /v1/projects/{p}`: a field left out keeps its value; null clears it. */
export const updateProjectBody = z.strictObject({
  base_domain: dnsName.nullable().optional(),
  repo: sourceFields.repo.unwrap().nullable().optional(),
  branch: sourceFields.branch.unwrap().nullable().optional(),
  compose_path: sourceFields.compose_path,
  auto_upgrade: sourceFields.auto_upgrade,
  webhook_secret: sourceFields.webhook_secret.unwrap().nullable().optional(),
  git_credentials: sourceFields.git_credentials.unwrap().nullable().optional(),
  registry_credentials: registryCredentialsSchema.nullable().optional(),
  /** The planner of the project's kubernetes envs: an OpenAI-compatible endpoint (`url` is its base,
   *  e.g. https://api.openai.com/v1); null: the deterministic planner. The key is never shown again. */
  planner: z
    .strictObject({
      kind: z.literal('llm'),
      url: z.string().max(2048).refine((u) => /^https?:\/\//.test(u) && URL.canParse(u), 'expected an http(s) URL'),
      model: z.string().min(1).max(200),
      key: z.string().min(1).max(4096),
    })
    .nullable()
    .optional(),
});
/**
 * `POST /v1/aws-accounts`: an AWS account a team's aws_ecs envs run in, in one of three ways (seed
 * 002's `aws_account` target) — exactly one of:
 *  - keys: `access_key_id` + `secret_access_key` (+ `session_token`) of the account; stored and
 *    never shown again; `endpoint` points the SDK at an AWS-compatible API instead of AWS's own;
 *  - `role_arn`: a role in the team's account that denv assumes with the operator's credentials and
 *    an external id denv makes (the answer shows both and the trust policy the role needs);
 *  - `vend`: denv has the operator's AWS Organization create a new account (minutes; the account's
 *    `state` is `vending` until then) and assumes `role_name` (default OrganizationAccountAccessRole) in it.
 */
export const createAwsAccountBody = z
  .strictObject({
    name: slug,
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'expected an AWS region such as eu-central-1'),
    access_key_id: z.string().min(16).max(128).regex(/^[A-Z0-9]+$/, 'expected an access key id (capital letters and digits)').optional(),
    secret_access_key: z.string().min(16).max(256).optional(),
    session_token: z.string().min(1).max(4096).optional(),
    endpoint: z.string().max(2048).refine((u) => /^https?:\/\//.test(u) && URL.canParse(u), 'expected an http(s) URL').optional(),
    role_arn: z
      .string()
      .regex(/^arn:(aws|aws-cn|aws-us-gov):iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/, 'expected an IAM role ARN such as arn:aws:iam::123456789012:role/denv')
      .optional(),
    vend: z
      .strictObject({
        /** The new account's root email: unique across all of AWS. */
        email: z.string().min(6).max(64).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'expected an email address'),
        /** Shown in the organization (default: denv-<name>). */
        account_name: z.string().regex(/^[\x20-\x7E]{1,50}$/, 'expected 1 to 50 printable ASCII characters').optional(),
        role_name: z.string().regex(/^[\w+=,.@-]{1,64}$/, 'expected an IAM role name').optional(),
      })
      .optional(),
  })
  .superRefine((b, ctx) => {
    const keys = b.access_key_id !== undefined || b.secret_access_key !== undefined || b.session_token !== undefined;
    const ways = [keys, b.role_arn !== undefined, b.vend !== undefined].filter(Boolean).length;
    if (ways !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of: access_key_id and secret_access_key (keys of the account), role_arn (a role denv assumes), vend (an account denv has created)' });
      return;
    }
    if (keys) {
      for (const field of ['access_key_id', 'secret_access_key'] as const) {
        if (b[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'required with keys' });
      }
    } else if (b.endpoint !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: "only with keys (a role or vended account is reached through the operator's endpoint)" });
    }
  });
export const deployBody = z.strictObject({
  compose: composeBody.optional(),
  /** Deploy the project's linked repository at `ref` (a branch, tag or commit; default: its branch).
   *  `repo`, when given, must be the linked repository (a check, not a way to deploy another). */
  source: z.strictObject({ repo: z.string().min(1).max(2048).optional(), ref: z.string().min(1).max(255).optional() }).optional(),
  env: slug.default('production'),
  warm: commandBody.optional(),
  /** Where: a host (or, for a kubernetes env, a cluster agent) by id or name; a cloud to provision a
   *  host from; the AWS account (id or name) of an aws_ecs env. */
  target: z
    .strictObject({ host: z.string().min(1).max(100).optional(), cloud: z.string().min(1).max(100).optional(), aws_account: z.string().min(1).max(100).optional() })
    .optional(),
  envelope: z.strictObject({ payload: z.string().max(64 * 1024), signature: z.string().max(4096) }).optional(),
  /** One signed envelope per image service (`envelope` is the one-service form; both may be sent). */
  envelopes: z.array(z.strictObject({ payload: z.string().max(64 * 1024), signature: z.string().max(4096) })).max(100).optional(),
});
/** `POST /v1/projects/{p}/previews`: the linked repository at `ref`, in preview env `name` (default preview-<ref>). */
export const previewBody = z.strictObject({
  ref: z.string().min(1).max(255),
  name: slug.optional(),
});
/** `POST /v1/clouds`: a way to get hosts (issue 14). `deprovision`: `when_empty` (default) destroys a
 *  machine it made once the last env on it is destroyed; `never` keeps it. */
const cloudCommon = { name: slug, deprovision: z.enum(['when_empty', 'never']).default('when_empty') };
/** The control plane's URL as a cloud's machines reach it (their agents dial <url>/agent/ws). */
const controlUrl = z.string().max(2048).regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'expected an http:// or https:// URL');
const absolutePath = z.string().max(1024).regex(/^\//, 'expected an absolute path');
/** A machine's directory for denv: absolute, normalised, and not / or a top-level system directory. */
const installDir = absolutePath.refine((p) => /^(\/[A-Za-z0-9._-]+){2,}$/.test(p) && !p.split('/').includes('..') && !p.split('/').includes('.'), 'expected a directory of its own such as /opt/denv (absolute, two levels deep or more, no . or ..)');
const allowPaths = z.array(absolutePath).max(16).optional();
/** `user@host[:port]`, an IPv6 host in brackets; the host starts with a letter or digit (never an ssh option). */
const sshTarget = z.string().max(300).regex(/^[a-z_][a-z0-9_.-]{0,31}@(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)(:\d{1,5})?$/, 'expected user@host or user@host:port');
export const createCloudBody = z.discriminatedUnion('provider', [
  /** Cannot provision: hosts are added by running `denv agent` by hand. */
  z.strictObject({ ...cloudCommon, provider: z.literal('manual') }),
  /** A new agent on the control plane's machine, in a network namespace of its own; each machine
   *  gets a /30 of `subnet` (default 10.231.0.0/16). It shares this machine's file system:
   *  `allow_paths` are the directories its process services may use as `working_dir` (its agents'
   *  `--allow-path`; its own workloads are always allowed). */
  z.strictObject({
    ...cloudCommon,
    provider: z.literal('local'),
    subnet: z.string().max(32).optional(),
    allow_paths: allowPaths,
  }),
  /** Machines the team has, reached over ssh with `private_key` (never shown again). Each provision
   *  takes the first of `machines` no live machine holds, uploads denv to `install_dir` and starts
   *  its agent as a service. Host keys: `known_hosts` lines, else pinned at first use. The machines
   *  need Node 20+ and tar. */
  z.strictObject({
    ...cloudCommon,
    provider: z.literal('ssh'),
    machines: z.array(sshTarget).min(1).max(100).refine((m) => new Set(m).size === m.length, 'a machine is named twice'),
    private_key: z.string().min(1).max(16_384).regex(/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'expected a private key (OpenSSH or PEM), not a public one'),
    known_hosts: z.string().max(65_536).optional(),
    control_url: controlUrl,
    install_dir: installDir.default('/opt/denv'),
    allow_paths: allowPaths,
  }),
  /** Hetzner Cloud servers (Hetzner's API with `token`, never shown again), each installing denv
   *  from the control plane at first boot (GET /v1/install/denv.tar) and enrolling its agent. */
  z.strictObject({
    ...cloudCommon,
    provider: z.literal('hetzner'),
    token: z.string().min(1).max(200),
    api_url: controlUrl.default('https://api.hetzner.cloud/v1'),
    location: z.string().regex(/^[a-z0-9-]{1,32}$/, 'expected a location name such as fsn1').default('fsn1'),
    server_type: z.string().regex(/^[a-z0-9-]{1,32}$/, 'expected a server type such as cx22').default('cx22'),
    image: z.string().regex(/^[a-z0-9.-]{1,64}$/, 'expected an image name such as ubuntu-24.04').default('ubuntu-24.04'),
    ssh_keys: z.array(z.string().min(1).max(128)).max(16).optional(),
    control_url: controlUrl,
    install_dir: installDir.default('/opt/denv'),
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'provider must be manual, local, ssh or hetzner' : undefined) });
export const createEnrollmentKeyBody = z.strictObject({
  /** Seconds until the key expires (default 1 h). */
  expires_in: z.number().int().min(1).max(30 * 24 * 3600).default(3600),
  /** Default true: a key enrolls one host (issue 10); false lets it enroll several until it expires. */
  single_use: z.boolean().default(true),
  name: z.string().min(1).max(100).optional(),
});
export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  after: z.string().max(512).optional(),
});
export const deploymentsQuery = listQuery.extend({ env: z.string().max(100).optional() });
/** `GET /v1/envs` filters: `project` (id or name) and `name` (the env's name), so clients can
 *  address an env as `<project>/<env>`. Unknown keys are refused like everywhere else. */
export const envsQuery = listQuery.extend({
  project: z.string().min(1).max(100).optional(),
  name: z.string().min(1).max(100).optional(),
});
/** `reveal=true` (admin-scoped tokens only): answer stored `environment` values and file contents
 *  instead of "***". */
export const revealFlag = z.enum(['true', 'false']).default('false').transform((v) => v === 'true');
export const revealListQuery = listQuery.extend({ reveal: revealFlag });
export const revealQuery = z.strictObject({ reveal: revealFlag });
export const eventsQuery = z.strictObject({
  subject: z.string().min(1).max(200),
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export type DeployBody = z.infer<typeof deployBody>;
export type CreateProjectBody = z.infer<typeof createProjectBody>;
export type UpdateProjectBody = z.infer<typeof updateProjectBody>;

/** Lifecycle actions (seed 002). */
export const replanBody = z.strictObject({ guidance: z.string().max(4000).optional() });
export const emptyBody = z.strictObject({});

/** Data operations on envs (issue 3). A version is named by id, or by its number within the env. */
export const forkBody = z.strictObject({ name: slug.optional() });
/** `to`: a host of the team, by id or name. */
export const moveBody = z.strictObject({ to: z.string().min(1).max(200) });
export const rollbackBody = z.strictObject({ version: z.union([z.string().min(1), z.number().int().min(1)]) });
export const verifyBody = z.strictObject({ resume: z.boolean().default(false) });
/** Two forms (checked by the handler): `{image?, command?, env?, ports?}` runs a one-service env;
 *  `{from_version}` forks a healthy snapshot. */
export const sandboxBody = z.strictObject({
  image: z.string().min(1).max(512).optional(),
  command: commandBody.optional(),
  env: z.record(z.string().max(255).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'), z.string().max(32 * 1024)).optional(),
  ports: z.array(z.number().int().min(1).max(65535)).optional(),
  from_version: z.string().min(1).max(100).optional(),
});
export const removeHostQuery = z.strictObject({ force: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') });

/** Telemetry (DESIGN §10; issue 5). A window is a duration such as `15m`, `1h`, `90s`, at most 24 h. */
const windowParam = z
  .string()
  .transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === null || ms <= 0 || ms > 24 * 3_600_000) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration such as 15m or 1h, at most 24h' });
      return z.NEVER;
    }
    return ms;
  });
const flag = z.enum(['true', 'false']).default('false').transform((v) => v === 'true');
/** `refresh=true`: ask the agent to probe now instead of answering the last pushed status. */
export const envStatusQuery = z.strictObject({ refresh: flag });
export const envLogsQuery = z.strictObject({
  service: z.string().min(1).max(100).optional(),
  /** Per workload, at most 200 (the ring buffer). */
  lines: z.coerce.number().int().min(1).max(200).default(200),
});
export const envMetricsQuery = z.strictObject({
  service: z.string().min(1).optional(),
  window: windowParam.default(15 * 60_000),
});
export const envUptimeQuery = z.strictObject({ window: windowParam.default(60 * 60_000) });
export const incidentsQuery = listQuery.extend({ status: z.enum(['open', 'resolved']).optional() });
export const improvementsQuery = listQuery.extend({ kind: z.enum(['bug', 'feature', 'chore']).optional() });
