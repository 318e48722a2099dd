/**
 * Vended AWS accounts (seed 002: "a dedicated AWS account vended for you under [the operator's]
 * AWS Organization"): a sweep takes each account in state `vending` one step further —
 *
 *   not asked yet       claim it (vend_started_at, one statement: one replica wins), then ask
 *                       Organizations to create it (CreateAccount) and store the request id;
 *   asked               read how far it got (DescribeCreateAccountStatus): SUCCEEDED → `ready` with
 *                       its account id and role ARN; FAILED → `failed` with AWS's reason.
 *
 * CreateAccount is not idempotent (vend-account.ts), so it is asked at most once per account: a
 * control plane that stopped between asking and storing the answer leaves a claim without a
 * request id, and after CLAIM_GRACE_MS the account is `failed` with what to check — never asked
 * twice. An AWS call that fails is an error: logged, and the next pass tries the status again (a
 * failed CreateAccount call, which made nothing, fails the account with its message). Events:
 * aws_account.vending, .vended, .vend_failed on `aws_account:<id>`.
 */
import { messageOf } from '../../../contracts/errors.js';
import type { Db } from '../../store/db.js';
import { appendEvent } from '../../store/events.js';
import type { AwsAccess } from './aws-access.js';
import type { AwsAccountRow } from './ecs-accounts.js';
import { DEFAULT_VEND_ROLE, startVending, vendingStatus } from './vend-account.js';

/** How long a claim without a request id may be another replica's call in flight. */
export const CLAIM_GRACE_MS = 5 * 60_000;

export async function sweepVending(db: Db, aws: AwsAccess, log: (line: string) => void): Promise<number> {
  const due = await db.query<AwsAccountRow & { claim_age_ms: number | null }>(
    `select *, (extract(epoch from now() - vend_started_at) * 1000)::float8 as claim_age_ms from aws_accounts
      where kind = 'vended' and state = 'vending' and removed_at is null order by created_at`,
  );
  if (due.length === 0) return 0;
  if (!aws.operator) {
    log(`aws vending: ${due.length} account(s) wait to be created, but this control plane has no operator credentials (--aws-operator-credentials)`);
    return 0;
  }
  for (const account of due) {
    try {
      await step(db, aws, account);
    } catch (err) {
      log(`aws vending: account ${account.name} (${account.id}): ${messageOf(err)}`);
    }
  }
  return due.length;
}

async function step(db: Db, aws: AwsAccess, a: AwsAccountRow & { claim_age_ms: number | null }): Promise<void> {
  const operator = aws.operator!;
  const roleName = a.vend_role_name ?? DEFAULT_VEND_ROLE;
  if (a.vend_request_id === null) {
    if (a.vend_started_at !== null) {
      if ((a.claim_age_ms ?? 0) < CLAIM_GRACE_MS) return; // another replica may be asking right now
      await fail(db, a, `the control plane stopped while asking AWS Organizations to create the account: look in the organization for account "${a.vend_account_name}" (${a.vend_email}) before adding it again`);
      return;
    }
    const claimed = await db.query('update aws_accounts set vend_started_at = now() where id = $1 and vend_started_at is null and state = $2 returning id', [a.id, 'vending']);
    if (claimed.length === 0) return;
    let requestId: string;
    try {
      requestId = (await startVending(operator, { accountName: a.vend_account_name!, email: a.vend_email!, roleName })).createRequestId;
    } catch (err) {
      await fail(db, a, messageOf(err));
      return;
    }
    await db.tx(async (tx) => {
      await tx.query('update aws_accounts set vend_request_id = $2 where id = $1', [a.id, requestId]);
      await appendEvent(tx, { team: a.team, subject: `aws_account:${a.id}`, type: 'aws_account.vending', data: { name: a.name, request: requestId } });
    });
    return;
  }
  const status = await vendingStatus(operator, a.vend_request_id, { roleName });
  if (status.state === 'IN_PROGRESS') return;
  if (status.state === 'FAILED') {
    await fail(db, a, status.failureReason ?? 'UNKNOWN');
    return;
  }
  await db.tx(async (tx) => {
    const done = await tx.query("update aws_accounts set state = 'ready', account_id = $2, role_arn = $3 where id = $1 and state = 'vending' returning id", [a.id, status.accountId, status.roleArn]);
    if (done.length > 0) await appendEvent(tx, { team: a.team, subject: `aws_account:${a.id}`, type: 'aws_account.vended', data: { name: a.name, account_id: status.accountId, role_arn: status.roleArn } });
  });
}

async function fail(db: Db, a: AwsAccountRow, reason: string): Promise<void> {
  await db.tx(async (tx) => {
    const done = await tx.query("update aws_accounts set state = 'failed', failure_reason = $2 where id = $1 and state = 'vending' returning id", [a.id, reason]);
    if (done.length > 0) await appendEvent(tx, { team: a.team, subject: `aws_account:${a.id}`, type: 'aws_account.vend_failed', data: { name: a.name, reason } });
  });
}
