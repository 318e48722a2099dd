/**
 * The team's AWS accounts (table aws_accounts): where ECS envs run. Credentials are read here and
 * handed to the executor; the API never shows them (toAwsAccount).
 */
import type { AwsAccount } from '../../../contracts/domain.js';
import type { Db } from '../../store/db.js';
import { iso } from '../../store/rows.js';
import type { EcsCredentials } from './aws-clients.js';

export interface AwsAccountRow {
  id: string; team: string; name: string; region: string; access_key_id: string; secret_access_key: string;
  session_token: string | null; endpoint: string | null; handover_requested_at: unknown; created_at: unknown; removed_at: unknown;
}


export const toAwsAccount = (r: AwsAccountRow): AwsAccount => ({
  id: r.id, name: r.name, region: r.region, handover_requested_at: iso(r.handover_requested_at), endpoint: r.endpoint, created_at: iso(r.created_at)!,
});

export const credentialsOf = (r: AwsAccountRow): EcsCredentials => ({
  accessKeyId: r.access_key_id,
  secretAccessKey: r.secret_access_key,
  region: r.region,
  ...(r.session_token ? { sessionToken: r.session_token } : {}),
  ...(r.endpoint ? { endpoint: r.endpoint } : {}),
});

export async function loadAwsAccount(db: Db, id: string): Promise<AwsAccountRow | undefined> {
  return (await db.query<AwsAccountRow>('select * from aws_accounts where id = $1', [id]))[0];
}

/** The account an ECS env is planned for: its own, else the one the deploy named, else the team's
 *  only one. Throws a message the env's last_error can show. */
export async function chooseAwsAccount(db: Db, team: string, own: string | null, requested: string | null): Promise<AwsAccountRow> {
  if (own) {
    const row = await loadAwsAccount(db, own);
    if (!row || row.removed_at) throw new Error(`the env's AWS account ${own} was removed`);
    return row;
  }
  // An account flagged for hand-over takes no new env.
  const live = await db.query<AwsAccountRow>('select * from aws_accounts where team = $1 and removed_at is null and handover_requested_at is null order by created_at', [team]);
  if (requested) {
    const row = live.find((a) => a.id === requested || a.name === requested);
    if (!row) throw new Error(`no AWS account "${requested}" in this team`);
    return row;
  }
  if (live.length === 1) return live[0]!;
  if (live.length === 0) throw new Error('this team has no AWS account for an aws_ecs env (POST /v1/aws-accounts)');
  throw new Error(`this team has ${live.length} AWS accounts: name one in the deploy (target.aws_account)`);
}
