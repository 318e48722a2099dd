/** `denv env versions <env>`: the versions of an env, oldest first (`GET /v1/envs/{env}/versions`). */
import type { Command } from 'commander';
import type { Page, Version } from '../../contracts/domain.js';
import { seg } from '../client.js';
import { clientFor, optionsOf } from '../config.js';
import { ENV_ARG_DESCRIPTION, resolveEnv } from '../env-ref.js';
import { examples, say } from '../help.js';
import { formatAge, formatTable, toJson } from '../output.js';
import { addPaging, noteNextPage } from './list-options.js';

export const VERSION_HEADERS = ['number', 'id', 'healthy', 'snapshot', 'created'] as const;

/** One row per version; the env's current one is marked `*` after its number (pure). */
export function versionRows(items: readonly Version[], current: string | null, now: number): string[][] {
  return items.map((v) => [`${v.number}${v.id === current ? ' *' : ''}`, v.id, v.healthy ? 'yes' : 'no', v.snapshot ?? '—', formatAge(v.created_at, now)]);
}

export function registerEnvVersions(env: Command): void {
  const cmd = env
    .command('versions')
    .description('list the versions of an env, oldest first (* marks the current one); roll back to one with `denv env rollback <env> <number>`')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--json', 'print the page as JSON ({items, next}; environment values shown as ***)')
    .addHelpText('after', examples('denv env versions shop/production', 'denv env versions env_0123abcd --json', 'denv env versions shop/production --limit 5'));
  addPaging(cmd).action(async (ref: string, _o: unknown, c: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(c);
    const client = clientFor(c);
    const e = await resolveEnv(client, ref);
    const page = await client.get<Page<Version>>(`/v1/envs/${seg(e.id)}/versions`, { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say(`env ${e.name} (${e.id}) has no versions yet`);
    say(formatTable(VERSION_HEADERS, versionRows(page.items, e.current_version, Date.now())));
    noteNextPage(page);
  });
}
