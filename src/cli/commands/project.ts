/**
 * `denv project show|link|unlink|planner|registry`: a project's settings, its linked repository
 * (DESIGN "Source", issue 13), the planner of its kubernetes envs (DESIGN §9) and the login of its
 * images' private registry (seed 002's registry-pull secret on AWS ECS), through PATCH
 * /v1/projects/{p}. An HTTPS token, a webhook secret and a registry password come from stdin or an
 * environment variable (secret-input.ts); a deploy key and an LLM API key may also come from a
 * file. The answer never carries them: the control plane says only whether they are set (the
 * planner: its URL and model; the registry: its server and user name).
 */
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import type { Project } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { seg } from '../client.js';
import { clientFor, optionsOf, parseHttpUrl } from '../config.js';
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
    ['planner', p.planner ? `llm: ${p.planner.model} at ${p.planner.url}` : 'deterministic'],
    ['registry', p.registry_credentials ? `${p.registry_credentials.server} as ${p.registry_credentials.username} (password set)` : '—'],
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

interface PlannerOptions {
  readonly llmUrl?: string;
  readonly model?: string;
  readonly keyFile?: string;
  readonly keyStdin?: boolean;
  readonly deterministic?: boolean;
}

/** Where `--key-file`, `--key-stdin` and the environment look for the LLM endpoint's API key. */
export const LLM_KEY_ENV = 'DENV_LLM_KEY';

/** `--llm-url`: the API base, as chat-client.ts appends `/chat/completions` to it. */
export function parseLlmUrl(value: string): string {
  let url: string;
  try {
    url = parseHttpUrl(value);
  } catch {
    throw new InvalidArgumentError('expected the endpoint\'s http(s) base URL, such as https://api.openai.com/v1');
  }
  if (/\/chat\/completions$/.test(url)) throw new InvalidArgumentError(`expected the base URL: leave out /chat/completions (${url.replace(/\/chat\/completions$/, '')})`);
  return url;
}

/** The key in `file`: its one line, without surrounding blanks. The message never quotes the file (it is a secret). */
async function readKeyFile(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new CliError('USAGE', `cannot read the key file ${file}: ${err.code ?? err.message}`);
  });
  const key = text.trim();
  if (key === '') throw new CliError('USAGE', `the key file ${file} is empty`);
  if (/[\r\n]/.test(key)) throw new CliError('USAGE', `the key file ${file} holds several lines: put only the API key in it`);
  return key;
}

/**
 * The PATCH body `denv project planner` sends: `{planner: null}` for --deterministic, else the LLM
 * endpoint with its key (from --key-file, --key-stdin or DENV_LLM_KEY — never an argument). Every
 * missing or clashing flag is a USAGE error naming it, checked before any key is read.
 */
export async function plannerBody(o: PlannerOptions): Promise<{ planner: { kind: 'llm'; url: string; model: string; key: string } | null }> {
  const llmFlags = [o.llmUrl !== undefined && '--llm-url', o.model !== undefined && '--model', o.keyFile !== undefined && '--key-file', o.keyStdin && '--key-stdin'].filter((f): f is string => Boolean(f));
  if (o.deterministic) {
    if (llmFlags.length > 0) throw new CliError('USAGE', `--deterministic clears the LLM planner: leave out ${llmFlags.join(', ')}`);
    return { planner: null };
  }
  if (llmFlags.length === 0) throw new CliError('USAGE', `say which planner: --llm-url <url> --model <name> (the key in --key-file, --key-stdin or ${LLM_KEY_ENV}), or --deterministic`);
  const missing = [o.llmUrl === undefined && '--llm-url <url> (the endpoint\'s base URL, e.g. https://api.openai.com/v1)', o.model === undefined && '--model <name> (e.g. gpt-4.1-mini)'].filter((f): f is string => Boolean(f));
  if (missing.length > 0) throw new CliError('USAGE', `missing ${missing.join(' and ')}`);
  if (o.keyFile !== undefined && o.keyStdin) throw new CliError('USAGE', 'give the API key in --key-file or on stdin (--key-stdin), not both');
  let key: string;
  if (o.keyFile !== undefined) key = await readKeyFile(o.keyFile);
  else if (o.keyStdin || process.env[LLM_KEY_ENV]) key = await readSecret({ what: 'the API key', fromStdin: o.keyStdin ?? false, stdinFlag: '--key-stdin', envVar: LLM_KEY_ENV });
  else throw new CliError('USAGE', `the API key is needed: --key-file <file>, --key-stdin, or set ${LLM_KEY_ENV} (never as an argument: a command line shows in ps)`);
  return { planner: { kind: 'llm', url: o.llmUrl!, model: o.model!, key } };
}

/** Where `--password-stdin` and the environment look for the registry password. */
export const REGISTRY_PASSWORD_ENV = 'DENV_REGISTRY_PASSWORD';

interface RegistryOptions {
  readonly server?: string;
  readonly username?: string;
  readonly passwordStdin?: boolean;
  readonly clear?: boolean;
}

/**
 * The PATCH body `denv project registry` sends: `{registry_credentials: null}` for --clear, else the
 * server, user name and password (from --password-stdin or DENV_REGISTRY_PASSWORD — never an
 * argument). Missing or clashing flags are USAGE errors, checked before the password is read.
 */
export async function registryBody(o: RegistryOptions): Promise<{ registry_credentials: { server: string; username: string; password: string } | null }> {
  const given = [o.server !== undefined && '--server', o.username !== undefined && '--username', o.passwordStdin && '--password-stdin'].filter((f): f is string => Boolean(f));
  if (o.clear) {
    if (given.length > 0) throw new CliError('USAGE', `--clear forgets the registry login: leave out ${given.join(', ')}`);
    return { registry_credentials: null };
  }
  const missing = [o.server === undefined && '--server <host> (e.g. ghcr.io or registry.example.com:5000)', o.username === undefined && '--username <name>'].filter((f): f is string => Boolean(f));
  if (missing.length > 0) throw new CliError('USAGE', `missing ${missing.join(' and ')} (or --clear)`);
  const password = await readSecret({ what: 'the registry password', fromStdin: o.passwordStdin ?? false, stdinFlag: '--password-stdin', envVar: REGISTRY_PASSWORD_ENV });
  return { registry_credentials: { server: o.server!, username: o.username!, password } };
}

/** PATCH /v1/projects/{name} with `body`, and print the project as the control plane answers it (JSON with --json). */
async function patchProject(c: Command, name: string, body: Record<string, unknown>): Promise<void> {
  const p = await clientFor(c).patch<Project>(`/v1/projects/${seg(name)}`, body);
  say(optionsOf<{ json?: boolean }>(c).json ? toJson(p) : formatProject(p));
}

export function registerProject(program: Command): void {
  const project = program
    .command('project')
    .description("a project's settings, its linked repository (deploy it with denv deploy --source) and the planner of its kubernetes envs")
    .addHelpText('after', examples(
      'denv project show shop',
      'denv project link shop --repo https://github.com/acme/shop.git --branch main',
      'denv project link shop --repo git@github.com:acme/shop.git --ssh-key deploy_key',
      'DENV_GIT_TOKEN=… denv project link shop --repo https://git.example.com/acme/shop.git --git-token',
      'denv project unlink shop',
      'denv project planner shop --llm-url https://api.openai.com/v1 --model gpt-4.1-mini --key-file ~/.config/denv/openai-key',
      'denv project planner shop --deterministic',
      'gh auth token | denv project registry shop --server ghcr.io --username octocat --password-stdin',
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
    .action((name: string, _o: unknown, c: Command) => patchProject(c, name, { repo: null, branch: null, auto_upgrade: false, git_credentials: null, webhook_secret: null }));
  project
    .command('planner <project>')
    .description("choose the planner of the project's kubernetes envs: an LLM (any OpenAI-compatible endpoint) or the deterministic one (the default)")
    .option('--llm-url <url>', "the endpoint's base URL, /chat/completions appended (e.g. https://api.openai.com/v1)", parseLlmUrl)
    .option('--model <name>', 'the model to ask (e.g. gpt-4.1-mini)')
    .option('--key-file <file>', `the API key, from a file holding only it (else --key-stdin or ${LLM_KEY_ENV})`)
    .option('--key-stdin', 'the API key, from stdin')
    .option('--deterministic', 'back to the deterministic planner (forgets the endpoint and its key)')
    .option('--json', 'print the project as JSON')
    .addHelpText('after', examples(
      'denv project planner shop --llm-url https://api.openai.com/v1 --model gpt-4.1-mini --key-file ~/.config/denv/openai-key',
      'pass show openai | denv project planner shop --llm-url https://api.openai.com/v1 --model gpt-4.1-mini --key-stdin',
      `${LLM_KEY_ENV}=… denv project planner shop --llm-url http://127.0.0.1:11434/v1 --model llama3.1:70b`,
      'denv project planner shop --deterministic',
      '# the key is never shown again: denv project show prints the planner\'s URL and model only',
    ))
    .action(async (name: string, _o: unknown, c: Command) => patchProject(c, name, await plannerBody(optionsOf<PlannerOptions>(c))));
  project
    .command('registry <project>')
    .description('the login of the private registry the project\'s images are pulled from (AWS ECS puts it in a Secrets Manager secret of the account)')
    .option('--server <host>', 'the registry host as image references name it: ghcr.io, registry.example.com:5000, docker.io')
    .option('--username <name>', 'the user name')
    .option('--password-stdin', `the password or access token, from stdin (else ${REGISTRY_PASSWORD_ENV})`)
    .option('--clear', 'forget the login (images are then pulled without one)')
    .option('--json', 'print the project as JSON')
    .addHelpText('after', examples(
      'gh auth token | denv project registry shop --server ghcr.io --username octocat --password-stdin',
      `${REGISTRY_PASSWORD_ENV}=… denv project registry shop --server registry.example.com:5000 --username deploy`,
      'denv project registry shop --clear',
      '# the password is never shown again: denv project show prints the server and user name only',
    ))
    .action(async (name: string, _o: unknown, c: Command) => patchProject(c, name, await registryBody(optionsOf<RegistryOptions>(c))));
}
