/** `denv env ls` and `denv env show <env>`. */
import type { Command } from 'commander';
import type { Endpoint, Env, Page } from '../../contracts/domain.js';
import { clientFor, optionsOf } from '../config.js';
import { examples, say } from '../help.js';
import { formatFields, formatTable, toJson } from '../output.js';
import { registerEnvOperations } from './env-operations.js';
import { watchEnvList } from './env-watch.js';
import { addPaging, noteNextPage } from './list-options.js';
import { registerEnvLifecycle } from './env-lifecycle.js';
import { registerEnvTelemetry } from './env-telemetry.js';
import { registerEnvSnapshots } from './env-snapshots.js';
import { registerEnvVersions } from './env-versions.js';
import { ENV_ARG_DESCRIPTION, resolveEnv } from '../env-ref.js';

/** `web→http://127.0.0.1:4100` — or its public URL when the edge published one (the one a user opens). */
export function formatEndpoints(endpoints: readonly Endpoint[]): string {
  return endpoints.map((e) => `${e.service}→${e.public?.[0] ?? e.url}`).join(' ') || '—';
}

/** The edge line of `env show`: its names and any provider that failed (`degraded`). */
export function formatEdge(edge: NonNullable<Env['edge']>): string {
  const failures = [edge.proxy, edge.dns].filter((p) => p.error).map((p) => `${p.provider}: ${p.error!.message}`);
  return `${edge.status}${failures.length > 0 ? ` — ${failures.join('; ')}` : ''}`;
}

export function envRows(items: readonly Env[]): string[][] {
  return items.map((e) => [e.id, e.name, e.project, e.stage, e.status, e.current_version ?? '—', formatEndpoints(e.endpoints ?? [])]);
}

export function formatEnvDetail(e: Env): string {
  const fields: [string, string][] = [
    ['id', e.id],
    ['name', e.name],
    ['project', e.project],
    ['stage', e.stage],
    ['status', e.status],
    ['version', e.current_version ?? '—'],
    ['parent', e.parent_version ?? '—'],
    ['host', e.host ?? '—'],
  ];
  (e.endpoints ?? []).forEach((ep, i) => fields.push([i === 0 ? 'endpoints' : '', `${ep.service} → ${[...(ep.public ?? []), ep.url].join(', ')}`]));
  if ((e.endpoints ?? []).length === 0) fields.push(['endpoints', '—']);
  if (e.edge) fields.push(['edge', formatEdge(e.edge)]);
  if (e.last_error) fields.push(['last error', e.last_error]);
  return formatFields(fields);
}

export function registerEnv(program: Command): void {
  const env = program
    .command('env')
    .description('environments: running instances of a project')
    .addHelpText('after', examples('denv env ls', 'denv env show env_0123abcd', 'denv env status shop/production', '# an env is named by id, by <project>/<env>, or by a name unique across projects'));
  registerEnvLifecycle(env);

  const ls = env
    .command('ls')
    .description('list environments')
    .option('--project <project>', 'only the envs of this project (id or name)')
    .option('--json', 'print the page as JSON ({items, next})')
    .option('--watch', 'print the list again whenever it changes, until Ctrl-C')
    .addHelpText('after', examples('denv env ls', 'denv env ls --project shop --json', 'denv env ls --watch'));
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string; watch?: boolean; project?: string }>(cmd);
    if (opts.watch) {
      const headers = ['id', 'name', 'project', 'stage', 'status', 'version', 'endpoints'];
      return watchEnvList(clientFor(cmd), { limit: opts.limit, after: opts.after, project: opts.project }, { json: opts.json, rows: envRows, headers });
    }
    const page = await clientFor(cmd).get<Page<Env>>('/v1/envs', { limit: opts.limit, after: opts.after, project: opts.project });
    if (opts.json) return say(toJson(page));
    if (page.items.length === 0) return say('no environments yet: deploy one with `denv deploy -f compose.yaml --project <name>`');
    say(formatTable(['id', 'name', 'project', 'stage', 'status', 'version', 'endpoints'], envRows(page.items)));
    noteNextPage(page);
  });

  env
    .command('show')
    .description('show one environment: status, version, host, endpoints, last error')
    .argument('<env>', ENV_ARG_DESCRIPTION)
    .option('--json', 'print the environment as JSON')
    .addHelpText('after', examples('denv env show env_0123abcd', 'denv env show shop/production --json'))
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const e = await resolveEnv(clientFor(cmd), id);
      say(opts.json ? toJson(e) : formatEnvDetail(e));
    });

  registerEnvOperations(env);
  registerEnvTelemetry(env);
  registerEnvSnapshots(env);
  registerEnvVersions(env);
}
