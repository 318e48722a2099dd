/**
 * `denv tokens ls|create|revoke`: the team's API tokens (GET/POST /v1/tokens, DELETE
 * /v1/tokens/{id}). A new token's secret is printed once; the control plane keeps only its hash.
 * Give CI a `deploy` token: it deploys and operates envs but cannot mint tokens or enrollment keys.
 */
import { Option, type Command } from 'commander';
import type { Page } from '../../contracts/domain.js';
import { clientFor, optionsOf, parsePositiveInt } from '../config.js';
import { examples, say } from '../help.js';
import { formatTable, toJson } from '../output.js';
import { addPaging, noteNextPage } from './list-options.js';

interface Token {
  readonly id: string;
  readonly name: string;
  readonly scope: string;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly token?: string;
}

export function tokenRows(items: readonly Token[], now: number): string[][] {
  return items.map((t) => [
    t.id, t.name, t.scope,
    t.revoked_at ? 'revoked' : t.expires_at && Date.parse(t.expires_at) <= now ? 'expired' : 'active',
    t.expires_at ?? 'never',
  ]);
}

export function registerTokens(program: Command): void {
  const tokens = program.command('tokens').description("list, create and revoke your team's API tokens");
  const ls = tokens
    .command('ls')
    .description('list tokens: id, name, scope, state, expiry (never the secrets)')
    .option('--json', 'print the page as JSON ({items, next})');
  addPaging(ls).action(async (_o: unknown, c: Command) => {
    const opts = optionsOf<{ json?: boolean; limit?: number; after?: string }>(c);
    const page = await clientFor(c).get<Page<Token>>('/v1/tokens', { limit: opts.limit, after: opts.after });
    if (opts.json) return say(toJson(page));
    say(formatTable(['id', 'name', 'scope', 'state', 'expires'], tokenRows(page.items, Date.now())));
    noteNextPage(page);
  });
  tokens
    .command('create <name>')
    .description('create a token (its secret is shown once)')
    .addOption(new Option('--scope <scope>', 'read, deploy or admin (at most your own; default: your own)').choices(['read', 'deploy', 'admin']))
    .option('--ttl <seconds>', 'expire after this many seconds', parsePositiveInt)
    .option('--json', 'print {id, name, scope, expires_at, token}')
    .addHelpText('after', examples('denv tokens create ci --scope deploy --ttl 2592000', 'denv tokens create dashboard --scope read --json'))
    .action(async (name: string, _o: unknown, c: Command) => {
      const opts = optionsOf<{ scope?: string; ttl?: number; json?: boolean }>(c);
      const t = await clientFor(c).post<Token>('/v1/tokens', { name, ...(opts.scope ? { scope: opts.scope } : {}), ...(opts.ttl ? { ttl: opts.ttl } : {}) });
      if (opts.json) return say(toJson(t));
      say(t.token ?? '');
      say(`${t.id}: scope ${t.scope}, ${t.expires_at ? `expires ${t.expires_at}` : 'no expiry'}. Shown once: keep it in your CI's secret store (DENV_TOKEN).`);
    });
  tokens
    .command('revoke <id>')
    .description('revoke a token: its next request is refused (401)')
    .option('--json', 'print the revoked token')
    .action(async (id: string, _o: unknown, c: Command) => {
      const opts = optionsOf<{ json?: boolean }>(c);
      const t = await clientFor(c).delete<Token>(`/v1/tokens/${encodeURIComponent(id)}`);
      if (opts.json) return say(toJson(t));
      say(`revoked ${t.id} (${t.name})`);
    });
}
