/**
 * `denv project show|link|unlink`: a project's settings, and its linked repository (DESIGN
 * "Source", issue 13) through PATCH /v1/projects/{p}. An HTTPS token and a webhook secret come
 * from stdin or an environment variable (secret-input.ts); a deploy key from a file. The answer
 * never carries them: the control plane says only whether they are set.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Project } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatFields, toJson } from '../output.js';
import { readSecret } from '../secret-input.js';

export function formatProject(p: Project): string {
  return formatFields([
    ['id', p.id],
    ['name', p.name],
    ['repo', p.repo ?? '—'],
    ['branch', p.branch ?? '—'],
    ['compose path', p.compose_path],
    ['auto-upgrade', p.auto_upgrade ? 'on' : 'off'],
    ['credentials', p.git_credentials ? `${p.git_credentials.kind} (set)` : '—'],
    ['webhook secret', p.webhook_secret ? 'set' : '—'],
    ['approval', p.approval],
    ['base domain', p.base_domain ?? "— (the team's)"],
  ]);
}

interface LinkOptions {
  readonly repo: string;
  readonly branch?: string;
  readonly composePath?: string;
  readonly autoUpgrade?: boolean;
  readonly gitTokenStdin?: boolean;
  readonly gitToken?: boolean;
  readonly gitTokenUser?: string;
  readonly sshKey?: string;
  readonly knownHosts?: string;
  readonly webhookSecretStdin?: boolean;
  readonly webhookSecret?: boolean;
  readonly json?: boolean;
}

/** The PATCH body `denv project link` sends. */
async function linkBody(o: LinkOptions): Promise<Record<string, unknown>> {
  if (o.gitTokenStdin && o.webhookSecretStdin) throw new CliError('USAGE', 'only one secret can come from stdin: pass the other in its environment variable');
  if ((o.gitToken || o.gitTokenStdin) && o.sshKey) throw new CliError('USAGE', 'give a token or an SSH key, not both');
  const body: Record<string, unknown> = { repo: o.repo };
  if (o.branch !== undefined) body.branch = o.branch;
  if (o.composePath !== undefined) body.compose_path = o.composePath;
  if (o.autoUpgrade !== undefined) body.auto_upgrade = o.autoUpgrade;
  if (o.gitToken || o.gitTokenStdin) {
    const token = await readSecret({ what: 'the access token', fromStdin: o.gitTokenStdin ?? false, stdinFlag: '--git-token-stdin', envVar: 'DENV_GIT_TOKEN' });
    body.git_credentials = { kind: 'token', token, ...(o.gitTokenUser ? { username: o.gitTokenUser } : {}) };
  } else if (o.sshKey) {
    const privateKey = await readFile(o.sshKey, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new CliError('USAGE', `cannot read the deploy key ${o.sshKey}: ${err.code ?? err.message}`);
    });
    const knownHosts = o.knownHosts ? await readFile(o.knownHosts, 'utf8') : undefined;
    body.git_credentials = { kind: 'ssh_key', private_key: privateKey, ...(knownHosts ? { known_hosts: knownHosts } : {}) };
  }
  if (o.webhookSecret || o.webhookSecretStdin) {
    body.webhook_secret = await readSecret({ what: 'the webhook secret', fromStdin: o.webhookSecretStdin ?? false, stdinFlag: '--webhook-secret-stdin', envVar: 'DENV_WEBHOOK_SECRET' });
  }
  return body;
}

export function registerProject(program: Command): void {
  const project = program
    .command('project')
    .description("a project's settings and its linked repository (deploy it with denv deploy --source)")
    .addHelpText('after', examples(
      'denv project show shop',
      'denv project link shop --repo https://github.com/acme/shop.git --branch main',
      'denv project link shop --repo git@github.com:acme/shop.git --ssh-key deploy_key',
      'DENV_GIT_TOKEN=… denv project link shop --repo https://git.example.com/acme/shop.git --git-token',
      'denv project unlink shop',
    ));
  project
    .command('show <project>')
    .description('print the settings (secrets only as "set")')
    .option('--json', 'print the project as JSON')
    .action(async (name: string, _o: unknown, c: Command) => {
      const p = await clientFor(c).get<Project>(`/v1/projects/${seg(name)}`);
      say(optionsOf<{ json?: boolean }>(c).json ? toJson(p) : formatProject(p));
    });
  project
    .command('link <project>')
    .description('link a repository (creating the project if needed): source deploys check it out at a branch, tag or commit')
    .requiredOption('--repo <address>', 'https://…, ssh://…, user@host:path or git://… (file://… under denv dev)')
    .option('--branch <name>', 'the default branch: what --source without a ref and auto-upgrade deploy')
    .option('--compose-path <path>', 'where the Compose file is in the repository (default compose.yaml)')
    .option('--auto-upgrade', 'deploy every push to the default branch (GitHub webhook)')
    .option('--no-auto-upgrade', 'stop deploying pushes')
    .option('--git-token', 'an HTTPS access token, from DENV_GIT_TOKEN')
    .option('--git-token-stdin', 'an HTTPS access token, from stdin')
    .option('--git-token-user <name>', 'the user name sent with the token (default x-access-token; GitLab: oauth2)')
    .option('--ssh-key <file>', 'an SSH deploy key (private key file without a passphrase)')
    .option('--known-hosts <file>', "the server's known_hosts lines (default: its key is pinned on the first fetch)")
    .option('--webhook-secret', 'the GitHub webhook secret, from DENV_WEBHOOK_SECRET')
    .option('--webhook-secret-stdin', 'the GitHub webhook secret, from stdin')
    .option('--json', 'print the project as JSON')
    .action(async (name: string, _o: unknown, c: Command) => {
      const opts = optionsOf<LinkOptions>(c);
      const client = clientFor(c);
      const body = await linkBody(opts);
      // A project that does not exist yet is created linked (as `denv deploy` creates one on first use).
      const p = await client.patch<Project>(`/v1/projects/${seg(name)}`, body).catch((err: unknown) => {
        if (err instanceof CliError && err.status === 404) return client.post<Project>('/v1/projects', { name, ...body });
        throw err;
      });
      say(opts.json ? toJson(p) : formatProject(p));
    });
  project
    .command('unlink <project>')
    .description('forget the linked repository, its credentials and webhook secret')
    .option('--json', 'print the project as JSON')
    .action(async (name: string, _o: unknown, c: Command) => {
      const p = await clientFor(c).patch<Project>(`/v1/projects/${seg(name)}`, { repo: null, branch: null, auto_upgrade: false, git_credentials: null, webhook_secret: null });
      say(optionsOf<{ json?: boolean }>(c).json ? toJson(p) : formatProject(p));
    });
}
