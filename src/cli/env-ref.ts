/**
 * How an env is named on the command line, and the one resolver every env command uses.
 *
 * - `env_…` is an id and passes through untouched (no request);
 * - `<project>/<env>` names the env `env` of project `project` (the project by id or name);
 * - a bare `<env>` names the env of that name in whichever project has one; when several
 *   projects do, the error lists them so the user can pick `<project>/<env>`.
 *
 * Env names are unique per project only among live envs (torn down or separated ones may repeat
 * a name): the live one wins, and with none live the newest.
 */
import type { Env, Page, Project } from '../contracts/domain.js';
import { CliError } from './cli-error.js';
import { seg, type ApiClient } from './client.js';

export type EnvRef =
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'path'; readonly project: string; readonly env: string }
  | { readonly kind: 'name'; readonly env: string };

export const ENV_REF_FORMS = 'an env id (env_…), <project>/<env>, or an env name';

/** Parse an env argument (pure). Throws USAGE for what can name no env (`a/b/c`, `/x`, ``). */
export function parseEnvRef(value: string): EnvRef {
  const v = value.trim();
  if (/^env_[A-Za-z0-9]+$/.test(v)) return { kind: 'id', id: v };
  const parts = v.split('/');
  if (parts.length === 2 && parts[0] && parts[1]) return { kind: 'path', project: parts[0], env: parts[1] };
  if (parts.length === 1 && v) return { kind: 'name', env: v };
  throw new CliError('USAGE', `"${value}" names no env: expected ${ENV_REF_FORMS}`);
}

/** Statuses after which an env no longer holds its name (the store's unique index skips them). */
const GONE = new Set(['torn_down', 'separated']);

/** Among envs of one project with the same name: the live one, else the newest (pure). */
export function pickEnv(candidates: readonly Env[]): Env | null {
  const live = candidates.filter((e) => !GONE.has(e.status));
  const pool = live.length > 0 ? live : candidates;
  return [...pool].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0] ?? null;
}

/** Every env matching the query, all pages (names are few; the limit only bounds each request). */
async function listEnvs(client: ApiClient, query: { project?: string; name: string }, signal?: AbortSignal): Promise<Env[]> {
  const items: Env[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.get<Page<Env>>('/v1/envs', { ...query, limit: 500, after }, signal);
    items.push(...page.items);
    if (page.next === null || page.next === undefined) return items;
    after = page.next;
  }
}

/** The env an argument names, as the API reads it. Ids are read too (to answer NOT_FOUND the API's way). */
export async function resolveEnv(client: ApiClient, value: string, signal?: AbortSignal): Promise<Env> {
  const ref = parseEnvRef(value);
  if (ref.kind === 'id') return client.get<Env>(`/v1/envs/${seg(ref.id)}`, undefined, signal);
  if (ref.kind === 'path') {
    const project = await client.get<Project>(`/v1/projects/${seg(ref.project)}`, undefined, signal);
    const env = pickEnv(await listEnvs(client, { project: project.id, name: ref.env }, signal));
    if (!env) throw new CliError('NOT_FOUND', `no env "${ref.env}" in project "${ref.project}"`, 404);
    return env;
  }
  const matches = await listEnvs(client, { name: ref.env }, signal);
  const byProject = new Map<string, Env[]>();
  for (const e of matches) byProject.set(e.project, [...(byProject.get(e.project) ?? []), e]);
  if (byProject.size === 0) throw new CliError('NOT_FOUND', `no env "${ref.env}" in any project`, 404);
  const picked = [...byProject.values()].map((group) => pickEnv(group)!);
  if (picked.length === 1) return picked[0]!;
  const names = await Promise.all(picked.map(async (e) => `${(await client.get<Project>(`/v1/projects/${seg(e.project)}`, undefined, signal)).name}/${e.name} (${e.id})`));
  throw new CliError('AMBIGUOUS', `env "${ref.env}" exists in ${picked.length} projects: ${names.sort().join(', ')}; name one as <project>/<env>`);
}

/**
 * The id of the env an argument names. An id passes through without a request (the command's
 * own request then answers NOT_FOUND for an unknown one); names are looked up.
 */
export async function resolveEnvId(client: ApiClient, value: string, signal?: AbortSignal): Promise<string> {
  const ref = parseEnvRef(value);
  if (ref.kind === 'id') return ref.id;
  return (await resolveEnv(client, value, signal)).id;
}

/** The `<env>` argument's description, the same on every command. */
export const ENV_ARG_DESCRIPTION = 'environment: id (env_…), <project>/<env>, or a name unique across projects';
