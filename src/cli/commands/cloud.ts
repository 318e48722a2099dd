/**
 * `denv cloud add|ls|rm`: the team's clouds, the ways it gets hosts (POST/GET /v1/clouds, DELETE
 * /v1/clouds/{name}). A deploy with no connected host provisions a machine through the first
 * cloud that can (or the one `--cloud` names), and its agent joins the team by itself.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
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

export function cloudRows(items: readonly Cloud[]): string[][] {
  return items.map((c) => [c.id, c.name, c.provider, String(c.machines), c.deprovision, typeof c.config.subnet === 'string' ? c.config.subnet : '—']);
}

export function registerCloud(program: Command): void {
  const cloud = program.command('cloud').description('add, list and remove clouds: the ways your team gets hosts');
  cloud
    .command('add <name>')
    .description('add a cloud; a deploy with no connected host provisions a machine through it')
    .addOption(new Option('--provider <provider>', 'manual (cannot provision) or local (new agents on the control plane\'s machine, each in a network namespace of its own)').choices(['manual', 'local']).makeOptionMandatory())
    .option('--subnet <cidr>', 'local: the IPv4 network machines get their /30s from (default 10.231.0.0/16)')
    .option('--allow-path <dir>', 'local: a directory its process services may use as working_dir (repeatable)', (v: string, prev: string[] = []) => [...prev, path.resolve(v)])
    .addOption(new Option('--deprovision <when>', 'destroy a machine once the last env on it is destroyed, or never').choices(['when_empty', 'never']).default('when_empty'))
    .option('--json', 'print the cloud as JSON')
    .addHelpText('after', examples('denv cloud add here --provider local', 'denv cloud add rack --provider manual', 'denv deploy --project shop --target cloud=here'))
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ provider: string; subnet?: string; allowPath?: string[]; deprovision: string; json?: boolean }>(cmd);
      const body = { name, provider: opts.provider, deprovision: opts.deprovision, ...(opts.subnet ? { subnet: opts.subnet } : {}), ...(opts.allowPath ? { allow_paths: opts.allowPath } : {}) };
      const made = await clientFor(cmd).post<Cloud>('/v1/clouds', body);
      if (opts.json) return say(toJson(made));
      say(`cloud ${made.name} (${made.provider}) added as ${made.id}`);
    });
  const ls = cloud.command('ls').description('list clouds: id, name, provider, live machines, deprovision rule, subnet').option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(cmd);
    const page = await clientFor(cmd).get<Page<Cloud>>('/v1/clouds', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no clouds yet: add one with `denv cloud add <name> --provider local`');
    say(formatTable(['id', 'name', 'provider', 'machines', 'deprovision', 'subnet'], cloudRows(page.items)));
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
