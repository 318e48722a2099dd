/**
 * Temporary credentials for an account denv does not hold keys for (seed 002's `aws_account`
 * target): STS AssumeRole, signed with `base` — the operator's management-account credentials for
 * an account vended through Organizations (role OrganizationAccountAccessRole), or denv's own
 * principal for a role ARN a team brings (its trust policy names denv's account, ideally with an
 * external id). The answer is an `EcsCredentials` for the executor (`new EcsTarget(creds)`), in
 * the same region and endpoint as `base`, plus when it expires (AWS: 1 hour by default).
 *
 * Failures are AwsCallErrors naming `sts:AssumeRole`; a role that does not exist, does not trust
 * the caller or wants another external id is one answer from AWS, 403 AccessDenied (not
 * retryable). A freshly vended account's role can take a short while before it is assumable.
 *
 * `AssumedRoleCache` keeps the credentials per role and session and assumes again when less than
 * five minutes are left, so a sweep can ask for them on every pass.
 */
import type { AssumeRoleCommandInput, AssumeRoleCommandOutput, STSClient } from '@aws-sdk/client-sts';
import { awsCall } from './aws-call.js';
import type { EcsCredentials } from './aws-clients.js';
import { sdkConfig } from './sdk-config.js';

export type AssumedCredentials = EcsCredentials & { readonly expiresAt: string };

export interface AssumeRoleOptions {
  /** Shows in the account's CloudTrail as the caller (`assumed-role/<role>/<sessionName>`);
   *  2–64 of `[\w+=,.@-]` (toSessionName makes one). */
  readonly sessionName: string;
  /** The external id the role's trust policy requires (a team's role: the one denv gave the team). */
  readonly externalId?: string;
  /** 900 … the role's MaxSessionDuration (1 hour unless raised); AWS's default 3600. */
  readonly durationS?: number;
  readonly signal?: AbortSignal;
}

/** Less than this left: assume again. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

export interface RoleArn {
  readonly partition: string;
  readonly accountId: string;
  /** Without its path. */
  readonly roleName: string;
}

/** The parts of an IAM role ARN (`arn:aws:iam::123456789012:role/path/name`), or null when `arn` is not one. */
export function parseRoleArn(arn: string): RoleArn | null {
  const m = /^arn:(aws|aws-cn|aws-us-gov):iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]{1,64})$/.exec(arn);
  return m ? { partition: m[1]!, accountId: m[2]!, roleName: m[3]! } : null;
}

/** A valid RoleSessionName from any text (`denv prod/web` → `denv-prod-web`), at most 64 characters. */
export function toSessionName(raw: string): string {
  const name = raw.replace(/[^\w+=,.@-]+/g, '-').slice(0, 64);
  return name.length >= 2 ? name : `denv-${name}`.slice(0, 64);
}

/** The AssumeRole request. */
export function assumeRoleInput(roleArn: string, o: Omit<AssumeRoleOptions, 'signal'>): AssumeRoleCommandInput {
  return {
    RoleArn: roleArn,
    RoleSessionName: o.sessionName,
    ...(o.externalId !== undefined ? { ExternalId: o.externalId } : {}),
    ...(o.durationS !== undefined ? { DurationSeconds: o.durationS } : {}),
  };
}

/** AssumeRole's answer as credentials in `base`'s region and endpoint. */
export function assumedCredentials(base: EcsCredentials, out: Pick<AssumeRoleCommandOutput, 'Credentials'>): AssumedCredentials {
  const c = out.Credentials;
  if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) throw new Error('sts:AssumeRole: the answer has no complete Credentials');
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    sessionToken: c.SessionToken,
    region: base.region,
    ...(base.endpoint !== undefined ? { endpoint: base.endpoint } : {}),
    ...(base.maxAttempts !== undefined ? { maxAttempts: base.maxAttempts } : {}),
    expiresAt: c.Expiration.toISOString(),
  };
}

/** True when `c` expires within `marginMs` of `nowMs` (or already has). */
export function needsRefresh(c: { readonly expiresAt: string }, nowMs: number, marginMs = REFRESH_BEFORE_MS): boolean {
  return Date.parse(c.expiresAt) - nowMs < marginMs;
}

/** STS's module, loaded on first use (aws-access.ts says why). */
type StsSdk = typeof import('@aws-sdk/client-sts');

/** Run `run` with an STS client signed with `c` (in its region), destroyed afterwards. */
export async function withSts<T>(c: EcsCredentials, run: (sts: STSClient, sdk: StsSdk) => Promise<T>): Promise<T> {
  const sdk = await import('@aws-sdk/client-sts');
  const sts = new sdk.STSClient(sdkConfig(c));
  try {
    return await run(sts, sdk);
  } finally {
    sts.destroy();
  }
}

/** STS AssumeRole into `roleArn` with `base`. STS is regional in SDK v3 (sts.<region>.amazonaws.com):
 *  base's region is used, which works from any enabled region. */
export async function assumeRole(base: EcsCredentials, roleArn: string, o: AssumeRoleOptions): Promise<AssumedCredentials> {
  const out = await withSts(base, (sts, sdk) => awsCall('sts:AssumeRole', () => sts.send(new sdk.AssumeRoleCommand(assumeRoleInput(roleArn, o)), { abortSignal: o.signal })));
  return assumedCredentials(base, out);
}

/**
 * Assumed credentials kept per (base key, role, external id, session name, region, endpoint); `get`
 * assumes again when less than `REFRESH_BEFORE_MS` is left. Concurrent `get`s for the same key share
 * one AssumeRole call (and its outcome, the first caller's abort included); a failure is not kept.
 * Lives as long as the process: nothing is persisted (temporary keys are not worth storing).
 */
export class AssumedRoleCache {
  private readonly entries = new Map<string, { value: AssumedCredentials | null; pending: Promise<AssumedCredentials> | null }>();
  private readonly now: () => number;
  private readonly assume: typeof assumeRole;

  constructor(o: { readonly now?: () => number; readonly assume?: typeof assumeRole } = {}) {
    this.now = o.now ?? Date.now;
    this.assume = o.assume ?? assumeRole;
  }

  get(base: EcsCredentials, roleArn: string, o: AssumeRoleOptions): Promise<AssumedCredentials> {
    const key = JSON.stringify([base.accessKeyId, roleArn, o.externalId ?? null, o.sessionName, base.region, base.endpoint ?? null]);
    const entry = this.entries.get(key) ?? { value: null, pending: null };
    this.entries.set(key, entry);
    if (entry.value && !needsRefresh(entry.value, this.now())) return Promise.resolve(entry.value);
    entry.pending ??= this.assume(base, roleArn, o).then(
      (value) => {
        entry.value = value;
        entry.pending = null;
        return value;
      },
      (err: unknown) => {
        entry.pending = null;
        throw err;
      },
    );
    return entry.pending;
  }

  /** Forgets every role's credentials (e.g. after an account's role changed). */
  clear(): void {
    this.entries.clear();
  }
}
