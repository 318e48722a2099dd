/**
 * AWS accounts (seed 002's `aws_account` target kind): accounts a team brings, where its aws_ecs envs
 * run on ECS Fargate. The control plane calls AWS with their keys (targets/ecs/); the API never shows
 * them. `handover_requested_at` is set when an env on the account is separated: the operator hands
 * the account over (seed 002), nothing automatic.
 */
import { createAwsAccountBody, listQuery } from '../../contracts/api.js';
import { DenvError } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { appendEvent } from '../store/events.js';
import { toAwsAccount, type AwsAccountRow } from '../targets/ecs/ecs-accounts.js';
import { listPage } from './paging.js';
import { route } from './route.js';

export const awsAccountRoutes = [
  route({
    method: 'POST', url: '/v1/aws-accounts', summary: 'Add an AWS account for aws_ecs envs {name, region, access_key_id, secret_access_key, session_token?, endpoint?} (the keys are never shown again)', body: createAwsAccountBody, status: 201, scope: 'admin',
    async handler({ db }, { auth, body }) {
      return db.tx(async (tx) => {
        const taken = await tx.query('select 1 from aws_accounts where team = $1 and name = $2 and removed_at is null', [auth.team, body.name]);
        if (taken.length > 0) throw new DenvError('CONFLICT', `AWS account "${body.name}" exists already`);
        const rows = await tx.query<AwsAccountRow>(
          'insert into aws_accounts (id, team, name, region, access_key_id, secret_access_key, session_token, endpoint) values ($1, $2, $3, $4, $5, $6, $7, $8) returning *',
          [newId('awsAccount'), auth.team, body.name, body.region, body.access_key_id, body.secret_access_key, body.session_token ?? null, body.endpoint ?? null],
        );
        await appendEvent(tx, { team: auth.team, subject: `aws_account:${rows[0]!.id}`, type: 'aws_account.added', data: { name: body.name, region: body.region, token: auth.tokenId } });
        return toAwsAccount(rows[0]!);
      });
    },
  }),
  route({
    method: 'GET', url: '/v1/aws-accounts', summary: "List the team's AWS accounts, oldest first (no keys; handover_requested_at when an env on it was separated)", query: listQuery,
    async handler({ db }, { auth, query }) {
      return listPage(db, { table: 'aws_accounts', where: 'team = $1 and removed_at is null', params: [auth.team] }, query, toAwsAccount);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/aws-accounts/:name', summary: 'Remove an AWS account (refused while live envs run on it); nothing in AWS changes', scope: 'admin',
    async handler({ db }, { auth, params }) {
      return db.tx(async (tx) => {
        const row = (await tx.query<AwsAccountRow>('select * from aws_accounts where team = $1 and (name = $2 or id = $2) and removed_at is null for update', [auth.team, params.name]))[0];
        if (!row) throw new DenvError('NOT_FOUND', `AWS account "${params.name}" not found`);
        const live = await tx.query<{ name: string }>("select name from envs where aws_account = $1 and status not in ('torn_down', 'separated')", [row.id]);
        if (live.length > 0) throw new DenvError('CONFLICT', `AWS account ${row.name} still runs ${live.length} env(s) (${live.map((e) => e.name).join(', ')}): tear them down first`);
        await tx.query('update aws_accounts set removed_at = now() where id = $1', [row.id]);
        await appendEvent(tx, { team: auth.team, subject: `aws_account:${row.id}`, type: 'aws_account.removed', data: { name: row.name, token: auth.tokenId } });
        return toAwsAccount(row);
      });
    },
  }),
];
