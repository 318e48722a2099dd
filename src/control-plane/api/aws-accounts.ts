/**
 * AWS accounts (seed 002's `aws_account` target kind), where a team's aws_ecs envs run on ECS
 * Fargate, added in one of three ways (contracts/api.ts createAwsAccountBody): keys the team gives,
 * a role the team made that denv assumes, or an account denv has the operator's AWS Organization
 * create (the vending sweep, targets/ecs/vending-sweep.ts, does that after the answer). The control
 * plane calls AWS as targets/ecs/aws-access.ts says; the API never shows keys.
 * `handover_requested_at` is set when an env on the account is separated: the operator hands the
 * account over (seed 002), nothing automatic.
 */
import { randomBytes } from 'node:crypto';
import { createAwsAccountBody, listQuery } from '../../contracts/api.js';
import type { AwsAccountKind } from '../../contracts/domain.js';
import { DenvError, messageOf } from '../../contracts/errors.js';
import { newId } from '../../contracts/ids.js';
import { appendEvent } from '../store/events.js';
import { parseRoleArn } from '../targets/ecs/assume-role.js';
import { toAwsAccount, type AwsAccountRow } from '../targets/ecs/ecs-accounts.js';
import { listPage } from './paging.js';
import { route } from './route.js';

/** An external id for a role account: made by denv, unique, never chosen by the team (a team that
 *  could choose it could name another team's role with that team's external id). */
const newExternalId = () => `denv-${randomBytes(18).toString('base64url')}`;

export const awsAccountRoutes = [
  route({
    method: 'POST', url: '/v1/aws-accounts', body: createAwsAccountBody, status: 201, scope: 'admin',
    summary:
      'Add an AWS account for aws_ecs envs: {name, region} and one of access_key_id + secret_access_key (+ session_token, endpoint; never shown again), role_arn (denv assumes it with the external id in the answer; trust_policy is what the role needs), or vend {email, account_name?, role_name?} (state vending until AWS Organizations made it)',
    async handler({ db, bus, aws }, { auth, body }) {
      const kind: AwsAccountKind = body.role_arn !== undefined ? 'role' : body.vend !== undefined ? 'vended' : 'keys';
      // Before the transaction: the one AWS call (GetCallerIdentity, once per process) a role account needs.
      let trusted: string | null = null;
      if (kind === 'role') {
        trusted = await aws.operatorPrincipal('a role account').catch((err: unknown) => {
          if (err instanceof DenvError) throw err;
          throw new DenvError('AWS_UNAVAILABLE', `could not ask AWS who the operator is: ${messageOf(err)}`);
        });
      }
      if (kind === 'vended') aws.requireOperator('a vended account');
      const made = await db.tx(async (tx) => {
        const taken = await tx.query('select 1 from aws_accounts where team = $1 and name = $2 and removed_at is null', [auth.team, body.name]);
        if (taken.length > 0) throw new DenvError('CONFLICT', `AWS account "${body.name}" exists already`);
        const id = newId('awsAccount');
        const rows = await tx.query<AwsAccountRow>(
          `insert into aws_accounts (id, team, name, region, kind, state, access_key_id, secret_access_key, session_token, endpoint,
             role_arn, external_id, trusted_principal, account_id, vend_email, vend_account_name, vend_role_name)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) returning *`,
          [
            id, auth.team, body.name, body.region, kind, kind === 'vended' ? 'vending' : 'ready',
            body.access_key_id ?? null, body.secret_access_key ?? null, body.session_token ?? null, body.endpoint ?? null,
            body.role_arn ?? null, kind === 'role' ? newExternalId() : null, trusted, body.role_arn ? parseRoleArn(body.role_arn)!.accountId : null,
            body.vend?.email ?? null, body.vend ? (body.vend.account_name ?? `denv-${body.name}`) : null, body.vend?.role_name ?? null,
          ],
        );
        await appendEvent(tx, { team: auth.team, subject: `aws_account:${id}`, type: 'aws_account.added', data: { name: body.name, region: body.region, kind, token: auth.tokenId } });
        return toAwsAccount(rows[0]!);
      });
      if (kind === 'vended') bus.emit('aws-vending'); // the vending sweep asks Organizations now
      return made;
    },
  }),
  route({
    method: 'GET', url: '/v1/aws-accounts', summary: "List the team's AWS accounts, oldest first (no keys; state vending/failed for vended ones; handover_requested_at when an env on it was separated)", query: listQuery,
    async handler({ db }, { auth, query }) {
      return listPage(db, { table: 'aws_accounts', where: 'team = $1 and removed_at is null', params: [auth.team] }, query, toAwsAccount);
    },
  }),
  route({
    method: 'DELETE', url: '/v1/aws-accounts/:name', summary: 'Remove an AWS account (refused while live envs run on it); nothing in AWS changes (a vended account stays in the organization)', scope: 'admin',
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
