/**
 * `denv preview create|rm`: preview envs by hand (POST/DELETE /v1/projects/{p}/previews). A new
 * preview is forked from production's latest healthy snapshot, so it starts with production's data;
 * GitHub pull requests open and close `pr-<n>` previews through the webhook on their own.
 */
import { Option, type Command } from 'commander';
import type { Env } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { toJson } from '../output.js';
import { exitCodeFor, watchDeployment } from '../watch.js';

interface PreviewOptions {
  readonly project?: string;
  readonly ref?: string;
  readonly name?: string;
  readonly watch?: boolean;
  readonly json?: boolean;
}

function projectOf(o: PreviewOptions): string {
  if (!o.project) throw new CliError('USAGE', 'which project? pass --project <name> (or set DENV_PROJECT)');
  return o.project;
}

export function registerPreview(program: Command): void {
  const preview = program
    .command('preview')
    .description("preview envs: the linked repository at a branch, with production's data (a fork of its latest healthy snapshot)")
    .addHelpText('after', examples('denv preview create --project shop --ref feature/cart --watch', 'denv preview rm --project shop preview-feature-cart'));
  preview
    .command('create')
    .description('deploy a branch, tag or commit to a preview env (new: forked from production first; existing: redeployed)')
    .addOption(new Option('--project <name>', 'project name or id').env('DENV_PROJECT'))
    .requiredOption('--ref <ref>', 'the branch, tag or commit to deploy')
    .option('--name <env>', 'the preview env (default preview-<ref>)')
    .option('--watch', 'follow the deploy to its end; exit 0 only if it succeeds')
    .option('--json', 'print JSON ({deployment, env, forked_from}, or with --watch the final deployment)')
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<PreviewOptions>(c);
      const client = clientFor(c);
      const started = await client.post<{ deployment: string; env: string; forked_from: string | null }>(`/v1/projects/${seg(projectOf(opts))}/previews`, { ref: opts.ref, ...(opts.name ? { name: opts.name } : {}) });
      const env = await client.get<Env>(`/v1/envs/${seg(started.env)}`);
      const line = `preview ${env.name} (${env.id}): deployment ${started.deployment} started${started.forked_from ? `, forked from production version ${started.forked_from}` : ''}`;
      if (!opts.watch) return say(opts.json ? toJson(started) : `${line}\nfollow it:  denv deployment watch ${started.deployment}`);
      if (!opts.json) say(line);
      const final = await watchDeployment(client, started.deployment, { json: opts.json });
      process.exitCode = exitCodeFor(final);
    });
  preview
    .command('rm <name>')
    .description('tear a preview env down (its processes, datasets, routes and ports)')
    .addOption(new Option('--project <name>', 'project name or id').env('DENV_PROJECT'))
    .option('--json', 'print JSON ({env, deployment})')
    .action(async (name: string, _o: unknown, c: Command) => {
      const opts = optionsOf<PreviewOptions>(c);
      const out = await clientFor(c).delete<{ env: string; deployment: string | null }>(`/v1/projects/${seg(projectOf(opts))}/previews/${seg(name)}`);
      say(opts.json ? toJson(out) : `preview ${name} (${out.env}): tearing down${out.deployment ? ` (deployment ${out.deployment})` : ''}`);
    });
}
