/**
 * Providers from a team's edge settings (edge-config.ts). The only place that maps a provider
 * kind to its implementation: a kind added to PROXY_KINDS or DNS_KINDS fails the build here
 * until it has one.
 *
 * Options that are not team settings (where Caddy's listeners bind, timeouts, TTL) come from
 * the host that uses the providers: an agent on a public host binds all interfaces, `denv dev`
 * and the tests bind 127.0.0.1.
 */
import { CaddyProxy } from './caddy/caddy-proxy.js';
import { CloudflareDns } from './cloudflare/cloudflare-dns.js';
import type { DnsKind, DnsProvider } from './dns-provider.js';
import type { DnsConfig, ProxyConfig } from './edge-config.js';
import { NoneDns, NoneProxy } from './none.js';
import { NpmplusProxy } from './npmplus/npmplus-proxy.js';
import { PowerDnsProvider } from './powerdns/powerdns-dns.js';
import type { ProxyKind, ProxyProvider } from './proxy-provider.js';

export interface ProviderOptions {
  /** Per HTTP call; each provider has its own default (10–15 s). */
  readonly timeoutMs?: number;
  /** Caddy: address denv's listeners bind (default all interfaces). */
  readonly caddyBindHost?: string;
  /** DNS: TTL of denv's records (default 60 s). */
  readonly ttl?: number;
}

type Opener<C, P> = (config: C, o: ProviderOptions) => P;

const PROXIES: { [K in ProxyKind]: Opener<Extract<ProxyConfig, { provider: K }>, ProxyProvider> } = {
  caddy: (c, o) => new CaddyProxy({ adminUrl: c.admin_url, httpPort: c.http_port, httpsPort: c.https_port, bindHost: o.caddyBindHost, timeoutMs: o.timeoutMs }),
  npmplus: (c, o) => new NpmplusProxy({ url: c.url, email: c.email, password: c.password, timeoutMs: o.timeoutMs }),
  none: () => new NoneProxy(),
};

const DNS: { [K in DnsKind]: Opener<Extract<DnsConfig, { provider: K }>, DnsProvider> } = {
  powerdns: (c, o) => new PowerDnsProvider({ apiUrl: c.api_url, apiKey: c.api_key, zone: c.zone, serverId: c.server_id, ttl: o.ttl, timeoutMs: o.timeoutMs }),
  cloudflare: (c, o) => new CloudflareDns({ apiToken: c.api_token, zoneId: c.zone_id, apiUrl: c.api_url, ttl: o.ttl, timeoutMs: o.timeoutMs }),
  none: () => new NoneDns(),
};

export function openProxyProvider(config: ProxyConfig, o: ProviderOptions = {}): ProxyProvider {
  return (PROXIES[config.provider] as Opener<ProxyConfig, ProxyProvider>)(config, o);
}

export function openDnsProvider(config: DnsConfig, o: ProviderOptions = {}): DnsProvider {
  return (DNS[config.provider] as Opener<DnsConfig, DnsProvider>)(config, o);
}
