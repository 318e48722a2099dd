/** `denv hosts`: the team's hosts (agents) and how recently each was heard from. */
import type { Command } from 'commander';
import type { Host, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatAge, formatTable, toJson } from '../output.js';
import { addPaging, noteNextPage } from './list-options.js';

export function hostRows(items: readonly Host[], now: number): string[][] {
  return items.map((h) => [h.id, h.name, h.kind === 'provider' ? `cloud ${h.cloud ?? '?'}` : 'sidecar', h.facts?.address ?? '127.0.0.1', h.drained_at ? `${h.status}, drained` : h.status, formatAge(h.last_heartbeat_at, now), (h.facts?.runtimes ?? []).join(',') || '—']);
}

export function registerHosts(program: Command): void {
  const cmd = program
    .command('hosts')
    .description('list hosts: id, name, where from (sidecar or its cloud), address, status, last heartbeat, runtimes')
    .option('--json', 'print the page as JSON ({items, next})')
    .addHelpText('after', examples('denv hosts', 'denv hosts --json', 'denv hosts drain web-1      # takes no new env; its envs stay', 'denv hosts undrain web-1'));
  for (const [verb, method, help] of [
    ['drain', 'post', 'drain a host: it takes no new env (new envs go elsewhere, or a cloud provisions); the envs on it stay and redeploy there'],
    ['undrain', 'delete', 'undrain a host: it takes new envs again'],
  ] as const) {
    cmd
      .command(`${verb} <host>`)
      .description(help)
      .option('--json', 'print the host as JSON')
      .action(async (host: string, _o: unknown, c: Command) => {
        const opts = optionsOf<{ json?: boolean }>(c);
        const path = `/v1/hosts/${encodeURIComponent(host)}/drain`;
        const client = clientFor(c);
        const after = method === 'post' ? await client.post<Host>(path, {}) : await client.delete<Host>(path);
        if (opts.json) return say(toJson(after));
        say(after.drained_at ? `host ${after.name} drained: it takes no new env` : `host ${after.name} takes new envs`);
      });
  }
  addPaging(cmd).action(async (_o: unknown, c: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(c);
    const page = await clientFor(c).get<Page<Host>>('/v1/hosts', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no hosts yet: start one with `DENV_ENROLLMENT_KEY=<key> denv agent --control <url>`');
    say(formatTable(['id', 'name', 'from', 'address', 'status', 'heartbeat', 'runtimes'], hostRows(page.items, Date.now())));
    noteNextPage(page);
  });
}
