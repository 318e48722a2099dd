/**
 * Vending a dedicated AWS account under the operator's AWS Organization (seed 002's `aws_account`
 * target): `startVending` asks Organizations to create it (CreateAccount), `vendingStatus` reads how
 * far that got (DescribeCreateAccountStatus). Creation is asynchronous — minutes as a rule — so a
 * sweep persists the request id from `startVending` at once and calls `vendingStatus` on its
 * passes until SUCCEEDED (then: the account id and the role ARN to assume, see assume-role.ts)
 * or FAILED (with AWS's reason, e.g. EMAIL_ALREADY_EXISTS, ACCOUNT_LIMIT_EXCEEDED). A FAILED
 * request is an outcome (the vending *failed*); an AwsCallError is an *error* (denv could not ask).
 *
 * `org` are credentials of the organization's management account (or of a delegated
 * administrator allowed to create accounts). CreateAccount is not idempotent: calling it again
 * after a lost answer asks for a second account (which then fails with EMAIL_ALREADY_EXISTS).
 *
 * Region and endpoint: Organizations is a global service with one endpoint per partition,
 * organizations.us-east-1.amazonaws.com for `aws` (us-gov-west-1 and cn-northwest-1 for the others),
 * signed for that region. The client is built with `organizationsRegion(org.region)`, so requests
 * are signed for it whichever region `org` works in; `org.endpoint` (tests: the local AWS API
 * server) replaces the URL only.
 */
import type { CreateAccountCommandInput, CreateAccountStatus, OrganizationsClient } from '@aws-sdk/client-organizations';
import { sdkConfig } from './sdk-config.js';
import { awsCall } from './aws-call.js';
import type { EcsCredentials } from './aws-clients.js';

/** The role Organizations makes in a new account, trusting the management account, with AdministratorAccess. */
export const DEFAULT_VEND_ROLE = 'OrganizationAccountAccessRole';

export const VENDING_STATES = ['IN_PROGRESS', 'SUCCEEDED', 'FAILED'] as const;
export type VendingState = (typeof VENDING_STATES)[number];

export interface VendRequest {
  /** 1–50 printable ASCII characters; shown in the organization. */
  readonly accountName: string;
  /** The new account's root email: 6–64 characters, unique across all of AWS. */
  readonly email: string;
  /** Default OrganizationAccountAccessRole. */
  readonly roleName?: string;
}

export interface VendingStatus {
  readonly state: VendingState;
  /** Set once SUCCEEDED. */
  readonly accountId: string | null;
  /** AWS's CreateAccountFailureReason once FAILED (`EMAIL_ALREADY_EXISTS`, …). */
  readonly failureReason: string | null;
  /** `arn:<partition>:iam::<accountId>:role/<roleName>` once SUCCEEDED: what assumeRole takes. */
  readonly roleArn: string | null;
}

const PARTITION_GLOBAL_REGION = { aws: 'us-east-1', 'aws-cn': 'cn-northwest-1', 'aws-us-gov': 'us-gov-west-1' } as const satisfies Record<string, string>;
export type Partition = keyof typeof PARTITION_GLOBAL_REGION;

/** The partition a region is in (`cn-north-1` → aws-cn, `us-gov-east-1` → aws-us-gov, else aws). */
export function partitionOf(region: string): Partition {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The region Organizations requests are signed for, from any region of the partition. */
export function organizationsRegion(region: string): string {
  return PARTITION_GLOBAL_REGION[partitionOf(region)];
}

export function roleArnFor(partition: Partition, accountId: string, roleName: string): string {
  return `arn:${partition}:iam::${accountId}:role/${roleName}`;
}

/** The CreateAccount request. */
export function createAccountInput(req: VendRequest): CreateAccountCommandInput {
  return { AccountName: req.accountName, Email: req.email, RoleName: req.roleName ?? DEFAULT_VEND_ROLE };
}

/** DescribeCreateAccountStatus's answer as a VendingStatus; throws on an answer without a known State. */
export function vendingStatusOf(status: CreateAccountStatus | undefined, o: { readonly partition: Partition; readonly roleName: string }): VendingStatus {
  const state = VENDING_STATES.find((s) => s === status?.State);
  if (!state) throw new Error(`organizations:DescribeCreateAccountStatus: unexpected state ${String(status?.State)}`);
  const accountId = state === 'SUCCEEDED' ? (status?.AccountId ?? null) : null;
  if (state === 'SUCCEEDED' && accountId === null) throw new Error('organizations:DescribeCreateAccountStatus: SUCCEEDED without an AccountId');
  return {
    state,
    accountId,
    failureReason: state === 'FAILED' ? (status?.FailureReason ?? 'UNKNOWN') : null,
    roleArn: accountId !== null ? roleArnFor(o.partition, accountId, o.roleName) : null,
  };
}

/** Organizations' module, loaded on first use (aws-access.ts says why). */
type OrganizationsSdk = typeof import('@aws-sdk/client-organizations');

async function withOrganizations<T>(org: EcsCredentials, run: (client: OrganizationsClient, sdk: OrganizationsSdk) => Promise<T>): Promise<T> {
  const sdk = await import('@aws-sdk/client-organizations');
  const client = new sdk.OrganizationsClient(sdkConfig(org, organizationsRegion(org.region)));
  try {
    return await run(client, sdk);
  } finally {
    client.destroy();
  }
}

/** Asks Organizations for a new account. Not idempotent (see above): persist the id before anything else. */
export async function startVending(org: EcsCredentials, req: VendRequest, o: { readonly signal?: AbortSignal } = {}): Promise<{ createRequestId: string }> {
  const out = await withOrganizations(org, (c, sdk) => awsCall('organizations:CreateAccount', () => c.send(new sdk.CreateAccountCommand(createAccountInput(req)), { abortSignal: o.signal })));
  const id = out.CreateAccountStatus?.Id;
  if (!id) throw new Error('organizations:CreateAccount: the answer has no request id');
  return { createRequestId: id };
}

/** How far the request got. `roleName` must be the one given to startVending (AWS does not report
 *  it); default OrganizationAccountAccessRole. Read-only: safe to call as often as wanted (AWS
 *  throttles bursts; a sweep's interval of 10 s or more is plenty). */
export async function vendingStatus(
  org: EcsCredentials,
  createRequestId: string,
  o: { readonly roleName?: string; readonly signal?: AbortSignal } = {},
): Promise<VendingStatus> {
  const out = await withOrganizations(org, (c, sdk) =>
    awsCall('organizations:DescribeCreateAccountStatus', () => c.send(new sdk.DescribeCreateAccountStatusCommand({ CreateAccountRequestId: createRequestId }), { abortSignal: o.signal })),
  );
  return vendingStatusOf(out.CreateAccountStatus, { partition: partitionOf(org.region), roleName: o.roleName ?? DEFAULT_VEND_ROLE });
}
