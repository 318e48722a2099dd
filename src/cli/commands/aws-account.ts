/**
 * `denv aws-account add|ls|rm`: the AWS accounts a team's aws_ecs envs run in (POST/GET
 * /v1/aws-accounts, DELETE /v1/aws-accounts/{name}), added with keys, as a role denv assumes
 * (`--role-arn`: prints the trust policy the role needs) or vended by the operator's AWS
 * Organization (`--vend-email`). A secret key comes from stdin or AWS_SECRET_ACCESS_KEY, never
 * from an argument (a command line shows in ps); it is stored by the control plane and never
 * shown again.
 */
import type { Command } from 'commander';
import type { AwsAccount, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { readSecret } from '../secret-input.js';
import { addPaging, noteNextPage } from './list-options.js';

export function awsAccountRows(items: readonly AwsAccount[]): string[][] {
  return items.map((a) => [
    a.id, a.name, a.region, a.kind === 'role' ? `role ${a.role_arn}` : a.kind === 'vended' ? `vended ${a.account_id ?? ''}`.trim() : 'keys',
    a.state === 'failed' ? `failed: ${a.failure_reason ?? '?'}` : a.state,
    a.handover_requested_at ? `requested ${a.handover_requested_at}` : '—', a.endpoint ?? 'AWS',
  ]);
}

interface AddOptions {
  readonly region: string;
  readonly roleArn?: string;
  readonly vendEmail?: string;
  readonly vendAccountName?: string;
  readonly vendRoleName?: string;
  readonly accessKeyId?: string;
  readonly secretStdin?: boolean;
  readonly endpoint?: string;
  readonly json?: boolean;
}

export function registerAwsAccount(program: Command): void {
  const account = program.command('aws-account').description('add, list and remove the AWS accounts aws_ecs envs run in (ECS Fargate)');
  account
    .command('add <name>')
    .description('add an AWS account; an env with x-denv.target aws_ecs runs there')
    .requiredOption('--region <region>', 'where its envs run, e.g. eu-central-1')
    .option('--access-key-id <id>', 'the access key id (default AWS_ACCESS_KEY_ID)')
    .option('--secret-stdin', 'read the secret access key from stdin (else AWS_SECRET_ACCESS_KEY); stored, never shown again')
    .option('--endpoint <url>', 'an AWS-compatible API instead of AWS itself (with keys)')
    .option('--role-arn <arn>', "instead of keys: a role in your account that denv assumes (with the control plane's operator credentials and the external id it prints)")
    .option('--vend-email <email>', "instead of keys: have the operator's AWS Organization create a new account with this root email (takes minutes)")
    .option('--vend-account-name <name>', 'the vended account\'s name in the organization (default denv-<name>)')
    .option('--vend-role-name <role>', 'the role denv assumes in the vended account (default OrganizationAccountAccessRole)')
    .option('--json', 'print the account as JSON')
    .addHelpText(
      'after',
      examples(
        'AWS_ACCESS_KEY_ID=AKIA… AWS_SECRET_ACCESS_KEY=… denv aws-account add prod --region eu-central-1',
        'denv aws-account add prod --region eu-central-1 --role-arn arn:aws:iam::123456789012:role/denv   # prints the trust policy to give the role',
        'denv aws-account add sandbox --region eu-central-1 --vend-email aws+sandbox@example.com',
        "denv deploy --project shop -f compose.yaml --target aws_account=prod   # compose: x-denv: {target: aws_ecs}",
      ),
    )
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const o = optionsOf<AddOptions>(cmd);
      const made = await clientFor(cmd).post<AwsAccount>('/v1/aws-accounts', { name, region: o.region, ...(await howToReach(o)) });
      if (o.json) return say(toJson(made));
      say(`AWS account ${made.name} (${made.region}) added as ${made.id}`);
      if (made.kind === 'role') {
        say(`denv assumes ${made.role_arn} with external id ${made.external_id}. Give the role this trust policy:`);
        say(JSON.stringify(made.trust_policy, null, 2));
      }
      if (made.kind === 'vended') say(`AWS Organizations is creating it (usually a few minutes): \`denv aws-account ls\` shows when it is ready`);
    });
  const ls = account.command('ls').description('list AWS accounts: id, name, region, how denv reaches it, state (vending while being created), hand-over (requested when an env on it was separated), API').option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(cmd);
    const page = await clientFor(cmd).get<Page<AwsAccount>>('/v1/aws-accounts', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no AWS accounts yet: add one with `denv aws-account add <name> --region <region>`');
    say(formatTable(['id', 'name', 'region', 'how', 'state', 'hand-over', 'api'], awsAccountRows(page.items)));
    noteNextPage(page);
  });
  account
    .command('rm <name>')
    .description('remove an AWS account (refused while live envs run on it); nothing in AWS changes')
    .option('--json', 'print the removed account as JSON')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const removed = await clientFor(cmd).delete<AwsAccount>(`/v1/aws-accounts/${encodeURIComponent(name)}`);
      if (opts.json) return say(toJson(removed));
      say(`AWS account ${removed.name} removed`);
    });
}

/** The body's part that says how denv reaches the account: a role, a vended account, or keys (the
 *  secret from stdin or the environment). */
async function howToReach(o: AddOptions): Promise<Record<string, unknown>> {
  // --endpoint is passed on with the other kinds too, for the API to refuse by name.
  const endpoint = o.endpoint ? { endpoint: o.endpoint } : {};
  if (o.roleArn) return { role_arn: o.roleArn, ...endpoint };
  if (o.vendEmail) return { vend: { email: o.vendEmail, ...(o.vendAccountName ? { account_name: o.vendAccountName } : {}), ...(o.vendRoleName ? { role_name: o.vendRoleName } : {}) }, ...endpoint };
  const accessKeyId = o.accessKeyId ?? process.env.AWS_ACCESS_KEY_ID ?? '';
  const secret = await readSecret({ what: 'the secret access key', fromStdin: o.secretStdin ?? false, stdinFlag: '--secret-stdin', envVar: 'AWS_SECRET_ACCESS_KEY' });
  return { access_key_id: accessKeyId, secret_access_key: secret, ...endpoint };
}
