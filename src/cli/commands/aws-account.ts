/**
 * `denv aws-account add|ls|rm`: the AWS accounts a team's aws_ecs envs run in (POST/GET
 * /v1/aws-accounts, DELETE /v1/aws-accounts/{name}). The secret key comes from stdin or
 * AWS_SECRET_ACCESS_KEY, never from an argument (a command line shows in ps); it is stored by the
 * control plane and never shown again.
 */
import type { Command } from 'commander';
import type { AwsAccount, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { readSecret } from '../secret-input.js';
import { addPaging, noteNextPage } from './list-options.js';

export function awsAccountRows(items: readonly AwsAccount[]): string[][] {
  return items.map((a) => [a.id, a.name, a.region, a.handover_requested_at ? `requested ${a.handover_requested_at}` : '—', a.endpoint ?? 'AWS']);
}

interface AddOptions {
  readonly region: string;
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
    .option('--endpoint <url>', 'an AWS-compatible API instead of AWS itself')
    .option('--json', 'print the account as JSON')
    .addHelpText(
      'after',
      examples(
        'AWS_ACCESS_KEY_ID=AKIA… AWS_SECRET_ACCESS_KEY=… denv aws-account add prod --region eu-central-1',
        "denv deploy --project shop -f compose.yaml --target aws_account=prod   # compose: x-denv: {target: aws_ecs}",
      ),
    )
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const o = optionsOf<AddOptions>(cmd);
      const accessKeyId = o.accessKeyId ?? process.env.AWS_ACCESS_KEY_ID ?? '';
      const secret = await readSecret({ what: 'the secret access key', fromStdin: o.secretStdin ?? false, stdinFlag: '--secret-stdin', envVar: 'AWS_SECRET_ACCESS_KEY' });
      const body = { name, region: o.region, access_key_id: accessKeyId, secret_access_key: secret, ...(o.endpoint ? { endpoint: o.endpoint } : {}) };
      const made = await clientFor(cmd).post<AwsAccount>('/v1/aws-accounts', body);
      if (o.json) return say(toJson(made));
      say(`AWS account ${made.name} (${made.region}) added as ${made.id}`);
    });
  const ls = account.command('ls').description('list AWS accounts: id, name, region, hand-over (requested when an env on it was separated), API').option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(cmd);
    const page = await clientFor(cmd).get<Page<AwsAccount>>('/v1/aws-accounts', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no AWS accounts yet: add one with `denv aws-account add <name> --region <region>`');
    say(formatTable(['id', 'name', 'region', 'hand-over', 'api'], awsAccountRows(page.items)));
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
