/**
 * How the control plane acts in a team's AWS account (seed 002's `aws_account` target), whichever
 * way the account was added (aws-accounts.ts API):
 *
 *  keys    the account's own keys, as the team gave them;
 *  role    STS AssumeRole into the team's `role_arn`, signed with the operator's credentials, with the
 *          external id denv made for the account (the role's trust policy requires it: a team cannot
 *          have denv act in someone else's account by naming their role, the confused deputy);
 *  vended  STS AssumeRole into the role Organizations made in the new account (it trusts the
 *          operator's management account, no external id).
 *
 * The operator's credentials are the control plane's own (`denv server --aws-operator-credentials`);
 * without them only keys accounts work, and the API refuses the other kinds. Assumed credentials
 * are kept per role until five minutes before they expire (assume-role.ts): phases and sweeps ask
 * on every call.
 *
 * The AWS SDK is loaded on first use (ecs-target.ts here, STS in assume-role.ts' withSts,
 * Organizations in vend-account.ts): its modules take ~80 MiB and most of a second to load, which
 * a control plane with no AWS account (most of them, and every `denv dev`) should not pay at start
 * (issue 11: RSS ≤ 300 MB, first start ≤ 5 s). Only type imports of the SDK and of ecs-target.ts
 * may stand at the top of this module (aws-sdk-lazy.test.ts).
 */
import { DenvError } from '../../../contracts/errors.js';
import { AssumedRoleCache, toSessionName, withSts } from './assume-role.js';
import { awsCall, awsErrorName } from './aws-call.js';
import type { EcsCredentials } from './aws-clients.js';
import type { AwsAccountRow } from './ecs-accounts.js';
import type { EcsTarget } from './ecs-target.js';
import { partitionOf } from './vend-account.js';

export class AwsAccess {
  private readonly roles = new AssumedRoleCache();
  private principal: Promise<string> | null = null;

  /** `operator`: the operator's credentials (the organization's management account for vending), or null. */
  constructor(readonly operator: EcsCredentials | null) {}

  /** The operator's credentials; CONFLICT (409) naming what needs them when there are none. */
  requireOperator(what: string): EcsCredentials {
    if (!this.operator) throw new DenvError('CONFLICT', `${what} needs the operator's AWS credentials, and this control plane has none: start it with --aws-operator-credentials <file>`);
    return this.operator;
  }

  /** The operator's account as a role's trust policy names it (`arn:aws:iam::<id>:root`), asked of
   *  STS once per process (GetCallerIdentity needs no permission). */
  operatorPrincipal(what: string): Promise<string> {
    const operator = this.requireOperator(what);
    this.principal ??= (async () => {
      const me = await withSts(operator, (sts, sdk) => awsCall('sts:GetCallerIdentity', () => sts.send(new sdk.GetCallerIdentityCommand({}))));
      if (!me.Account) throw new Error('sts:GetCallerIdentity: the answer has no Account');
      return `arn:${partitionOf(operator.region)}:iam::${me.Account}:root`;
    })().catch((err: unknown) => {
      this.principal = null; // asked again next time
      throw err;
    });
    return this.principal;
  }

  /** An executor acting in `account` (close it when done). */
  async target(account: AwsAccountRow, signal?: AbortSignal): Promise<EcsTarget> {
    const credentials = await this.credentials(account, signal);
    const { EcsTarget } = await import('./ecs-target.js');
    return new EcsTarget(credentials);
  }

  /** The credentials to act in `account` with, in its region. Throws a message that names the
   *  account and, when AWS refused the role, what its trust policy must allow. */
  async credentials(account: AwsAccountRow, signal?: AbortSignal): Promise<EcsCredentials> {
    if (account.kind === 'keys') {
      return {
        accessKeyId: account.access_key_id!,
        secretAccessKey: account.secret_access_key!,
        region: account.region,
        ...(account.session_token ? { sessionToken: account.session_token } : {}),
        ...(account.endpoint ? { endpoint: account.endpoint } : {}),
      };
    }
    if (account.state !== 'ready' || !account.role_arn) throw new Error(`AWS account ${account.name} is ${account.state === 'vending' ? 'still being created' : `not usable (${account.failure_reason ?? account.state})`}`);
    const operator = this.requireOperator(`AWS account ${account.name} (${account.kind})`);
    try {
      const assumed = await this.roles.get(operator, account.role_arn, {
        sessionName: toSessionName(`denv-${account.id}`),
        ...(account.external_id ? { externalId: account.external_id } : {}),
        ...(signal ? { signal } : {}),
      });
      // STS answered in the operator's region; the account's envs run in its own.
      return { ...assumed, region: account.region };
    } catch (err) {
      const denied = awsErrorName(err) === 'AccessDenied';
      const hint = !denied
        ? ''
        : account.kind === 'role'
          ? `; its trust policy must let ${account.trusted_principal ?? "the operator's account"} assume it with sts:ExternalId ${account.external_id} (GET /v1/aws-accounts shows the policy)`
          : '; a new account can take a few minutes before its role may be assumed';
      throw new Error(`cannot act in AWS account ${account.name} (${account.role_arn}): ${err instanceof Error ? err.message : String(err)}${hint}`, { cause: err });
    }
  }
}
