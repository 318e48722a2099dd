/** `denv deployments [--env]`: recent deployments as a table. */
import type { Command } from 'commander';
import type { Deployment, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatAge, formatTable, toJson, truncate } from '../output.js';
import { addPaging, noteNextPage } from './list-options.js';
import { resolveEnvId } from '../env-ref.js';

/** A row per deployment; the last column is its error, or what a pending one waits for. */
export function deploymentRows(items: readonly Deployment[], now: number): string[][] {
  return items.map((d) => [d.id, d.kind, d.env, d.status, formatAge(d.created_at, now), truncate(d.error ?? (d.waiting ? `waiting for ${d.waiting}` : ''), 80)]);
}

export function registerDeployments(program: Command): void {
  const cmd = program
    .command('deployments')
    .description('list deployments, newest first')
    .option('--env <env>', 'only this environment (id, <project>/<env>, or a unique name)')
    .option('--json', 'print the page as JSON ({items, next})')
    .addHelpText('after', examples('denv deployments', 'denv deployments --env shop/production --limit 5', 'denv deployments --json'));
  addPaging(cmd).action(async (_o: unknown, c: Command) => {
    const opts = optionsOf<{ env?: string; json?: boolean; limit?: number; after?: string }>(c);
    const client = clientFor(c);
    const env = opts.env === undefined ? undefined : await resolveEnvId(client, opts.env);
    const page = await client.get<Page<Deployment>>('/v1/deployments', { env, limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no deployments');
    say(formatTable(['id', 'kind', 'env', 'status', 'created', 'error / waiting for'], deploymentRows(page.items, Date.now())));
    noteNextPage(page);
  });
}
