/**
 * `denv cloud add|ls|rm`: the team's clouds, the ways it gets hosts (POST/GET /v1/clouds, DELETE
 * /v1/clouds/{name}). A deploy with no connected host provisions a machine through the first
 * cloud that can (or the one `--cloud` names), and its agent joins the team by itself.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Page } from '../../contracts/domain.js';
import { CliError } from '../cli-error.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { readSecret } from '../secret-input.js';
import { addPaging, noteNextPage } from './list-options.js';

interface Cloud {
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  readonly deprovision: string;
  readonly config: Record<string, unknown>;
  readonly machines: number;
  readonly created_at: string;
}

/** Where a cloud's machines come from: a local cloud's subnet, an ssh cloud's machines. */
function origin(c: Cloud): string {
  if (typeof c.config.subnet === 'string') return c.config.subnet;
  if (Array.isArray(c.config.machines)) return c.config.machines.join(' ');
  return '—';
}

export function cloudRows(items: readonly Cloud[]): string[][] {
  return items.map((c) => [c.id, c.name, c.provider, String(c.machines), c.deprovision, origin(c)]);
}

interface AddOptions {
  readonly provider: string;
  readonly subnet?: string;
  readonly allowPath?: string[];
  readonly machine?: string[];
  readonly sshKey?: string;
  readonly knownHosts?: string;
  readonly controlUrl?: string;
  readonly installDir?: string;
  readonly tokenStdin?: boolean;
  readonly apiUrl?: string;
  readonly location?: string;
  readonly serverType?: string;
  readonly image?: string;
  readonly hetznerSshKey?: string[];
  readonly deprovision: string;
  readonly json?: boolean;
}

const readOption = (flag: string, file: string) =>
  readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new CliError('USAGE', `${flag}: cannot read ${file}: ${err.code ?? err.message}`);
  });

/** The POST /v1/clouds body the options describe (the server says what is missing or wrong). */
async function addBody(name: string, o: AddOptions): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { name, provider: o.provider, deprovision: o.deprovision };
  if (o.subnet) body.subnet = o.subnet;
  if (o.allowPath) body.allow_paths = o.allowPath;
  if (o.machine) body.machines = o.machine;
  if (o.sshKey) body.private_key = await readOption('--ssh-key', o.sshKey);
  if (o.knownHosts) body.known_hosts = await readOption('--known-hosts', o.knownHosts);
  if (o.controlUrl) body.control_url = o.controlUrl;
  if (o.installDir) body.install_dir = o.installDir;
  if (o.provider === 'hetzner') body.token = await readSecret({ what: 'the Hetzner Cloud API token', fromStdin: o.tokenStdin ?? false, stdinFlag: '--token-stdin', envVar: 'HCLOUD_TOKEN' });
  if (o.apiUrl) body.api_url = o.apiUrl;
  if (o.location) body.location = o.location;
  if (o.serverType) body.server_type = o.serverType;
  if (o.image) body.image = o.image;
  if (o.hetznerSshKey) body.ssh_keys = o.hetznerSshKey;
  return body;
}

export function registerCloud(program: Command): void {
  const cloud = program.command('cloud').description('add, list and remove clouds: the ways your team gets hosts');
  cloud
    .command('add <name>')
    .description('add a cloud; a deploy with no connected host provisions a machine through it')
    .addOption(new Option('--provider <provider>', "manual (cannot provision), local (new agents on the control plane's machine, each in a network namespace of its own), ssh (machines of yours: denv installs its agent on them) or hetzner (Hetzner Cloud servers)").choices(['manual', 'local', 'ssh', 'hetzner']).makeOptionMandatory())
    .option('--subnet <cidr>', 'local: the IPv4 network machines get their /30s from (default 10.231.0.0/16)')
    .option('--allow-path <dir>', 'local, ssh: a directory its process services may use as working_dir (repeatable)', (v: string, prev: string[] = []) => [...prev, path.resolve(v)])
    .option('--machine <user@host[:port]>', 'ssh: a machine the cloud may install an agent on (repeatable; each provision takes the first free one)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--ssh-key <file>', 'ssh: the private key that logs in to the machines (stored by the control plane, never shown again)')
    .option('--known-hosts <file>', "ssh: known_hosts lines pinning the machines' host keys (default: pinned at first use)")
    .option('--control-url <url>', 'ssh, hetzner: the control plane as the machines reach it (their agents dial <url>/agent/ws)')
    .option('--install-dir <dir>', 'ssh, hetzner: where denv lives on a machine (default /opt/denv)')
    .option('--token-stdin', 'hetzner: read the API token from stdin (else HCLOUD_TOKEN); stored, never shown again')
    .option('--location <name>', 'hetzner: where servers are made (default fsn1)')
    .option('--server-type <name>', 'hetzner: the server type (default cx22)')
    .option('--image <name>', 'hetzner: the image (default ubuntu-24.04)')
    .option('--hetzner-ssh-key <name>', "hetzner: an SSH key of the project to put on servers for root (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
    .option('--api-url <url>', 'hetzner: the API (default https://api.hetzner.cloud/v1)')
    .addOption(new Option('--deprovision <when>', 'destroy a machine once the last env on it is destroyed, or never').choices(['when_empty', 'never']).default('when_empty'))
    .option('--json', 'print the cloud as JSON')
    .addHelpText(
      'after',
      examples(
        'denv cloud add here --provider local',
        'denv cloud add rack --provider manual',
        'HCLOUD_TOKEN=… denv cloud add hz --provider hetzner --location nbg1 --control-url https://denv.example.com',
        'denv cloud add boxes --provider ssh --machine root@203.0.113.7 --machine root@203.0.113.8:2222 --ssh-key ~/.ssh/denv --control-url https://denv.example.com',
        'denv deploy --project shop --target cloud=here',
      ),
    )
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const body = await addBody(name, optionsOf<AddOptions>(cmd));
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const made = await clientFor(cmd).post<Cloud>('/v1/clouds', body);
      if (opts.json) return say(toJson(made));
      say(`cloud ${made.name} (${made.provider}) added as ${made.id}`);
    });
  const ls = cloud.command('ls').description('list clouds: id, name, provider, live machines, deprovision rule, where machines come from').option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(cmd);
    const page = await clientFor(cmd).get<Page<Cloud>>('/v1/clouds', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no clouds yet: add one with `denv cloud add <name> --provider local`');
    say(formatTable(['id', 'name', 'provider', 'machines', 'deprovision', 'from'], cloudRows(page.items)));
    noteNextPage(page);
  });
  cloud
    .command('rm <name>')
    .description('remove a cloud (refused while machines it made exist)')
    .option('--json', 'print the removed cloud as JSON')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const removed = await clientFor(cmd).delete<Cloud>(`/v1/clouds/${encodeURIComponent(name)}`);
      if (opts.json) return say(toJson(removed));
      say(`cloud ${removed.name} removed`);
    });
}
