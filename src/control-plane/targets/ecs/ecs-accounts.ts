/**
 * The team's AWS accounts (table aws_accounts): where ECS envs run. Rows are read here; how denv
 * acts in one is aws-access.ts; the API never shows their keys (toAwsAccount).
 */
import type { AwsAccount, AwsAccountKind, AwsAccountState } from '../../../contracts/domain.js';
import type { Db } from '../../store/db.js';
import { iso } from '../../store/rows.js';

export interface AwsAccountRow {
  id: string; team: string; name: string; region: string; kind: AwsAccountKind; state: AwsAccountState;
  /** keys only. */
  access_key_id: string | null; secret_access_key: string | null; session_token: string | null; endpoint: string | null;
  role_arn: string | null; external_id: string | null; trusted_principal: string | null; account_id: string | null;
  vend_email: string | null; vend_account_name: string | null; vend_role_name: string | null; vend_request_id: string | null; vend_started_at: unknown;
  failure_reason: string | null; handover_requested_at: unknown; created_at: unknown; removed_at: unknown;
}

export const toAwsAccount = (r: AwsAccountRow): AwsAccount => ({
  id: r.id, name: r.name, region: r.region, kind: r.kind, state: r.state, account_id: r.account_id, role_arn: r.role_arn, external_id: r.external_id,
  trust_policy: r.kind === 'role' && r.trusted_principal && r.external_id ? roleTrustPolicy(r.trusted_principal, r.external_id) : null,
  email: r.vend_email, failure_reason: r.failure_reason,
  handover_requested_at: iso(r.handover_requested_at), endpoint: r.endpoint, created_at: iso(r.created_at)!,
});

export async function loadAwsAccount(db: Db, id: string): Promise<AwsAccountRow | undefined> {
  return (await db.query<AwsAccountRow>('select * from aws_accounts where id = $1', [id]))[0];
}

/** Why `row` takes no env now, or null when it does. */
function unusable(row: AwsAccountRow): string | null {
  if (row.handover_requested_at) return `AWS account ${row.name} is flagged for hand-over and takes no new env`;
  if (row.state === 'vending') return `AWS account ${row.name} is still being created by AWS Organizations (GET /v1/aws-accounts shows when it is ready)`;
  if (row.state === 'failed') return `AWS account ${row.name} could not be created: ${row.failure_reason ?? 'unknown reason'}`;
  return null;
}

/** The account an ECS env is planned for: its own, else the one the deploy named, else the team's
 *  only usable one. Throws a message the env's last_error can show. */
export async function chooseAwsAccount(db: Db, team: string, own: string | null, requested: string | null): Promise<AwsAccountRow> {
  if (own) {
    const row = await loadAwsAccount(db, own);
    if (!row || row.removed_at) throw new Error(`the env's AWS account ${own} was removed`);
    return row;
  }
  const all = await db.query<AwsAccountRow>('select * from aws_accounts where team = $1 and removed_at is null order by created_at', [team]);
  if (requested) {
    const row = all.find((a) => a.id === requested || a.name === requested);
    if (!row) throw new Error(`no AWS account "${requested}" in this team`);
    const why = unusable(row);
    if (why) throw new Error(why);
    return row;
  }
  const live = all.filter((a) => unusable(a) === null);
  if (live.length === 1) return live[0]!;
  if (live.length === 0) throw new Error(all.length === 0 ? 'this team has no AWS account for an aws_ecs env (POST /v1/aws-accounts)' : `this team has no AWS account ready for a new env (${all.map((a) => unusable(a)).join('; ')})`);
  throw new Error(`this team has ${live.length} AWS accounts: name one in the deploy (target.aws_account)`);
}

/** The trust policy a team's role needs so that `principal` (the operator's account) may assume it
 *  with `externalId`: what `GET /v1/aws-accounts` shows and the CLI prints. */
export function roleTrustPolicy(principal: string, externalId: string): Record<string, unknown> {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { AWS: principal }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'sts:ExternalId': externalId } } }],
  };
}
