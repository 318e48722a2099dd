/**
 * `denv enrollment-key [create]|ls|revoke`: the team's enrollment keys (POST/GET
 * /v1/enrollment-keys, DELETE /v1/enrollment-keys/{id}). A new key is shown once; the control
 * plane keeps only its hash. Keys are single-use unless `--reusable`; a revoked key enrolls no
 * host any more (hosts already enrolled keep their credentials).
 */
import type { Command } from 'commander';
import type { Page } from '../../contracts/domain.js';
import { baseUrl, clientFor, optionsOf, parsePositiveInt } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { addPaging, noteNextPage } from './list-options.js';

interface NewEnrollmentKey {
  readonly id: string;
  readonly key: string;
  readonly expires_at: string;
  readonly single_use: boolean;
}

interface EnrollmentKey {
  readonly id: string;
  readonly name: string | null;
  readonly single_use: boolean;
  readonly state: 'usable' | 'used' | 'expired' | 'revoked';
  readonly expires_at: string;
  readonly used_at: string | null;
}

export function enrollmentKeyRows(items: readonly EnrollmentKey[]): string[][] {
  return items.map((k) => [k.id, k.name ?? '-', k.single_use ? 'single' : 'reusable', k.state, k.expires_at, k.used_at ?? '-']);
}

export function registerEnrollmentKey(program: Command): void {
  const keys = program
    .command('enrollment-key')
    .description('create, list and revoke the keys that let a new agent join your team');
  keys
    .command('create', { isDefault: true })
    .description('create a key (shown once); `denv enrollment-key` alone does this')
    .option('--name <name>', 'a label shown by `denv enrollment-key ls`')
    .option('--expires-in <seconds>', 'lifetime of the key', parsePositiveInt, 3600)
    .option('--single-use', 'the key enrolls one host only (the default)')
    .option('--reusable', 'the key enrolls any number of hosts until it expires or is revoked')
    .option('--json', 'print {id, key, expires_at, single_use}')
    .addHelpText('after', examples('denv enrollment-key', 'denv enrollment-key create --name rack-2 --expires-in 86400 --reusable --json'))
    .action(async (_o: unknown, cmd: Command) => {
      const opts = optionsOf<{ name?: string; expiresIn: number; singleUse?: boolean; reusable?: boolean; json?: boolean }>(cmd);
      const body = { expires_in: opts.expiresIn, single_use: !opts.reusable, ...(opts.name ? { name: opts.name } : {}) };
      const key = await clientFor(cmd).post<NewEnrollmentKey>('/v1/enrollment-keys', body);
      if (opts.json) return say(toJson(key));
      say(key.key);
      say(`${key.id}: expires ${key.expires_at}${key.single_use ? ', single use' : ', reusable'}. On the host to add:`);
      // The key goes in the environment, not argv: argv is visible to every user in `ps`.
      say(`  DENV_ENROLLMENT_KEY=${key.key} denv agent --control ${baseUrl(opts)} --data-dir /var/lib/denv-agent`);
    });
  const ls = keys
    .command('ls')
    .description('list keys: id, name, use, state (usable, used, expired, revoked), expiry, first use — never the keys')
    .option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, cmd: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(cmd);
    const page = await clientFor(cmd).get<Page<EnrollmentKey>>('/v1/enrollment-keys', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    say(formatTable(['id', 'name', 'use', 'state', 'expires', 'used'], enrollmentKeyRows(page.items)));
    noteNextPage(page);
  });
  keys
    .command('revoke <id>')
    .description('revoke a key: no host enrolls with it any more')
    .option('--json', 'print the revoked key')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const opts = optionsOf<{ json?: boolean }>(cmd);
      const k = await clientFor(cmd).delete<EnrollmentKey>(`/v1/enrollment-keys/${encodeURIComponent(id)}`);
      if (opts.json) return say(toJson(k));
      say(`revoked ${k.id}${k.name ? ` (${k.name})` : ''}`);
    });
}
