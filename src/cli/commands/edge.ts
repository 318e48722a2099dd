/**
 * `denv edge show|set-proxy|set-dns|set-base-domain|clear`: the team's edge settings (GET/PUT
 * /v1/edge, docs/edge.md). Each `set-*` changes only its own part: `set-dns` keeps the proxy.
 * `set-base-domain`/`clear base-domain` with `--project` set one project's own base domain
 * (PATCH /v1/projects/{p}).
 *
 * Secrets (NPMplus password, PowerDNS API key, Cloudflare token) are read from stdin
 * (`--…-stdin`) or an environment variable, never from an argument: a command line is visible
 * to every local user in `ps`. Nothing printed carries them: the control plane answers them
 * redacted.
 */
import type { Command } from 'commander';
import type { Project } from '../../contracts/domain.js';
import type { EdgeSettings } from '../../contracts/edge-settings.js';
import { CliError } from '../cli-error.js';
import { clientFor, optionsOf, parsePositiveInt } from '../config.js';
import { examples, say } from '../help.js';
import { formatFields, toJson } from '../output.js';
import { readSecret } from '../secret-input.js';

/** `caddy admin_url=http://127.0.0.1:2019 http_port=8080`; `—` when not set. */
export function describeProvider(config: { readonly provider: string } | null): string {
  if (!config) return '—';
  const rest = Object.entries(config).filter(([k]) => k !== 'provider').map(([k, v]) => `${k}=${String(v)}`);
  return [config.provider, ...rest].join(' ');
}

export function formatEdgeSettings(s: EdgeSettings): string {
  return formatFields([
    ['base domain', s.base_domain ?? '—'],
    ['proxy', describeProvider(s.proxy)],
    ['dns', describeProvider(s.dns)],
    ['updated', s.updated_at ?? 'never'],
  ]);
}

type Change = { readonly base_domain?: string | null; readonly proxy?: object | null; readonly dns?: object | null };

/** PUT the change and print the settings as the control plane answers them. */
async function apply(c: Command, change: Change): Promise<void> {
  const opts = optionsOf<{ json?: boolean }>(c);
  const settings = await clientFor(c).put<EdgeSettings>('/v1/edge', change);
  say(opts.json ? toJson(settings) : formatEdgeSettings(settings));
}

/** `--project`: set (or, null, clear) one project's own base domain and print the project's. */
async function applyToProject(c: Command, project: string, baseDomain: string | null): Promise<void> {
  const opts = optionsOf<{ json?: boolean }>(c);
  const p = await clientFor(c).patch<Project>(`/v1/projects/${encodeURIComponent(project)}`, { base_domain: baseDomain });
  if (opts.json) return say(toJson(p));
  say(formatFields([
    ['project', p.name],
    ['base domain', p.base_domain ?? "— (the team's: denv edge show)"],
    ['hostnames', p.base_domain ? `<env>.${p.name}.${p.base_domain} for envs other than production` : "under the team's base domain"],
  ]));
}

function registerSetProxy(edge: Command): void {
  const proxy = edge
    .command('set-proxy')
    .description('choose the proxy that routes hostnames to services: caddy, npmplus or none (the DNS settings are kept)')
    .addHelpText('after', examples(
      'denv edge set-proxy caddy --admin-url http://127.0.0.1:2019',
      'DENV_NPMPLUS_PASSWORD=… denv edge set-proxy npmplus --npmplus-url https://npm.example.com:81 --email admin@example.com',
      'denv edge set-proxy none',
    ));
  proxy
    .command('caddy')
    .description("Caddy, through its admin API (it has no auth: keep it on loopback)")
    .requiredOption('--admin-url <url>', "Caddy's admin API, e.g. http://127.0.0.1:2019")
    .option('--http-port <port>', "the port denv's Caddy server answers HTTP on (default 80)", parsePositiveInt)
    .option('--https-port <port>', "the port denv's Caddy server answers HTTPS on (default 443)", parsePositiveInt)
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', examples('denv edge set-proxy caddy --admin-url http://127.0.0.1:2019', 'denv edge set-proxy caddy --admin-url http://127.0.0.1:2019 --http-port 8080 --https-port 8443 --json'))
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<{ adminUrl: string; httpPort?: number; httpsPort?: number }>(c);
      await apply(c, { proxy: { provider: 'caddy', admin_url: opts.adminUrl, ...(opts.httpPort ? { http_port: opts.httpPort } : {}), ...(opts.httpsPort ? { https_port: opts.httpsPort } : {}) } });
    });
  proxy
    .command('npmplus')
    .description('NPMplus or Nginx Proxy Manager, through its REST API; the password comes from stdin or DENV_NPMPLUS_PASSWORD')
    // Not `--url`: that global option names the control plane.
    .requiredOption('--npmplus-url <url>', 'its base URL, e.g. https://npm.example.com:81 (/api/… is appended)')
    .requiredOption('--email <email>', 'the user denv logs in as (no second factor)')
    .option('--password-stdin', 'read the password from stdin (else DENV_NPMPLUS_PASSWORD)')
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', examples(
      'denv edge set-proxy npmplus --npmplus-url https://npm.example.com:81 --email admin@example.com --password-stdin < npm-password',
      'DENV_NPMPLUS_PASSWORD=… denv edge set-proxy npmplus --npmplus-url http://127.0.0.1:81 --email admin@example.com',
    ))
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<{ npmplusUrl: string; email: string; passwordStdin?: boolean }>(c);
      const password = await readSecret({ what: 'the NPMplus password', fromStdin: opts.passwordStdin === true, stdinFlag: '--password-stdin', envVar: 'DENV_NPMPLUS_PASSWORD' });
      await apply(c, { proxy: { provider: 'npmplus', url: opts.npmplusUrl, email: opts.email, password } });
    });
  proxy
    .command('none')
    .description('no proxy: services answer on their host addresses only')
    .option('--json', 'print the settings as JSON')
    .action(async (_o: unknown, c: Command) => apply(c, { proxy: { provider: 'none' } }));
}

function registerSetDns(edge: Command): void {
  const dns = edge
    .command('set-dns')
    .description("choose the DNS provider that publishes hostnames' A/AAAA records: powerdns, cloudflare or none (the proxy settings are kept)")
    .addHelpText('after', examples(
      'denv edge set-dns powerdns --api-url http://127.0.0.1:8081 --zone example.com --api-key-stdin < pdns-key',
      'DENV_CLOUDFLARE_API_TOKEN=… denv edge set-dns cloudflare --zone-id 023e105f4ecef8ad9ca31a8372d0c353',
      'denv edge set-dns none',
    ));
  dns
    .command('powerdns')
    .description('PowerDNS Authoritative, through its HTTP API; the API key comes from stdin or DENV_POWERDNS_API_KEY')
    .requiredOption('--api-url <url>', 'its webserver, e.g. http://127.0.0.1:8081 (/api/v1/… is appended)')
    .requiredOption('--zone <zone>', "the zone denv's names live in, e.g. example.com (it must exist)")
    .option('--server-id <id>', 'the server id (default localhost)')
    .option('--api-key-stdin', 'read the API key from stdin (else DENV_POWERDNS_API_KEY)')
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', examples(
      'denv edge set-dns powerdns --api-url http://127.0.0.1:8081 --zone example.com --api-key-stdin < pdns-key',
      'DENV_POWERDNS_API_KEY=… denv edge set-dns powerdns --api-url http://10.0.0.2:8081 --zone apps.example.com --json',
    ))
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<{ apiUrl: string; zone: string; serverId?: string; apiKeyStdin?: boolean }>(c);
      const apiKey = await readSecret({ what: 'the PowerDNS API key', fromStdin: opts.apiKeyStdin === true, stdinFlag: '--api-key-stdin', envVar: 'DENV_POWERDNS_API_KEY' });
      await apply(c, { dns: { provider: 'powerdns', api_url: opts.apiUrl, api_key: apiKey, zone: opts.zone, ...(opts.serverId ? { server_id: opts.serverId } : {}) } });
    });
  dns
    .command('cloudflare')
    .description('Cloudflare DNS (DNS-only records); the API token (Zone.DNS edit) comes from stdin or DENV_CLOUDFLARE_API_TOKEN')
    .requiredOption('--zone-id <id>', "the zone's id (the zone's Overview page, 32 hex characters)")
    .option('--api-url <url>', 'API base URL (default https://api.cloudflare.com/client/v4)')
    .option('--api-token-stdin', 'read the API token from stdin (else DENV_CLOUDFLARE_API_TOKEN)')
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', examples(
      'denv edge set-dns cloudflare --zone-id 023e105f4ecef8ad9ca31a8372d0c353 --api-token-stdin < cf-token',
      'DENV_CLOUDFLARE_API_TOKEN=… denv edge set-dns cloudflare --zone-id 023e105f4ecef8ad9ca31a8372d0c353',
    ))
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<{ zoneId: string; apiUrl?: string; apiTokenStdin?: boolean }>(c);
      const apiToken = await readSecret({ what: 'the Cloudflare API token', fromStdin: opts.apiTokenStdin === true, stdinFlag: '--api-token-stdin', envVar: 'DENV_CLOUDFLARE_API_TOKEN' });
      await apply(c, { dns: { provider: 'cloudflare', api_token: apiToken, zone_id: opts.zoneId, ...(opts.apiUrl ? { api_url: opts.apiUrl } : {}) } });
    });
  dns
    .command('none')
    .description('no DNS: hostnames are published some other way')
    .option('--json', 'print the settings as JSON')
    .action(async (_o: unknown, c: Command) => apply(c, { dns: { provider: 'none' } }));
}

const CLEARABLE = { 'base-domain': 'base_domain', proxy: 'proxy', dns: 'dns' } as const;

export function registerEdge(program: Command): void {
  const edge = program
    .command('edge')
    .description("your team's edge settings: the base domain, the proxy and the DNS provider (secrets are never shown)")
    .addHelpText('after', examples(
      'denv edge show',
      'denv edge set-base-domain apps.example.com',
      'denv edge set-proxy caddy --admin-url http://127.0.0.1:2019',
      'denv edge set-dns powerdns --api-url http://127.0.0.1:8081 --zone example.com --api-key-stdin < pdns-key',
      'denv edge clear dns',
    ));
  edge
    .command('show', { isDefault: true })
    .description('print the settings, secrets redacted; `denv edge` alone does this')
    .option('--json', 'print the settings as JSON ({base_domain, proxy, dns, updated_at})')
    .addHelpText('after', examples('denv edge show', 'denv edge show --json'))
    .action(async (_o: unknown, c: Command) => {
      const opts = optionsOf<{ json?: boolean }>(c);
      const settings = await clientFor(c).get<EdgeSettings>('/v1/edge');
      say(opts.json ? toJson(settings) : formatEdgeSettings(settings));
    });
  registerSetProxy(edge);
  registerSetDns(edge);
  edge
    .command('set-base-domain <domain>')
    .description("the domain hostnames are made under: <env>.<project>.<domain> (the team's, or with --project one project's own)")
    .option('--project <project>', "set this project's own base domain (its envs use it instead of the team's)")
    .option('--json', 'print the settings (with --project: the project) as JSON')
    .addHelpText('after', examples('denv edge set-base-domain apps.example.com', 'denv edge set-base-domain shop.example.net --project shop', 'denv edge clear base-domain --project shop'))
    .action(async (domain: string, _o: unknown, c: Command) => {
      const { project } = optionsOf<{ project?: string }>(c);
      return project !== undefined ? applyToProject(c, project, domain) : apply(c, { base_domain: domain });
    });
  edge
    .command('clear <setting...>')
    .description("unset settings: base-domain, proxy, dns (the others are kept); base-domain --project: the project's own")
    .option('--project <project>', "with base-domain: clear this project's own base domain (its envs use the team's again)")
    .option('--json', 'print the settings as JSON')
    .addHelpText('after', examples('denv edge clear base-domain', 'denv edge clear proxy dns', 'denv edge clear base-domain --project shop'))
    .action(async (settings: string[], _o: unknown, c: Command) => {
      const { project } = optionsOf<{ project?: string }>(c);
      if (project !== undefined) {
        if (settings.length !== 1 || settings[0] !== 'base-domain') throw new CliError('USAGE', '--project clears only base-domain (proxy and dns are the team\'s)');
        return applyToProject(c, project, null);
      }
      const change: Record<string, null> = {};
      for (const s of settings) {
        if (!Object.hasOwn(CLEARABLE, s)) throw new CliError('USAGE', `cannot clear "${s}": expected base-domain, proxy or dns`);
        change[CLEARABLE[s as keyof typeof CLEARABLE]] = null;
      }
      await apply(c, change);
    });
}
