/**
 * A team's edge settings as DESIGN §11 lists them for `PUT /v1/edge` (`proxy`, `dns`), and what
 * may be shown of them. Secrets (`password`, `api_key`, `api_token`) are ordinary fields here
 * because providers need them; `redactProxyConfig`/`redactDnsConfig` give what the API answers
 * and logs may carry, and `secretsOf*` the strings every provider redacts from its errors.
 *
 * The API's validation schema (closed, path-naming errors) belongs in contracts/ with the team
 * settings route; these types are what providers are built from.
 */
export type ProxyConfig =
  | {
      readonly provider: 'caddy';
      /** Caddy's admin API, e.g. `http://127.0.0.1:2019` (keep it on loopback: it has no auth). */
      readonly admin_url: string;
      /** Ports denv's Caddy server listens on; default 80 and 443. */
      readonly http_port?: number;
      readonly https_port?: number;
    }
  | {
      readonly provider: 'npmplus';
      /** NPMplus (or Nginx Proxy Manager) base URL, e.g. `https://npm.example.com:81`; `/api/…` is appended. */
      readonly url: string;
      readonly email: string;
      readonly password: string;
    }
  | { readonly provider: 'none' };

export type DnsConfig =
  | {
      readonly provider: 'powerdns';
      /** The PowerDNS webserver, e.g. `http://127.0.0.1:8081`; `/api/v1/…` is appended. */
      readonly api_url: string;
      readonly api_key: string;
      /** The zone denv's names live in, e.g. `example.com` (with or without the trailing dot). */
      readonly zone: string;
      /** Default `localhost`, the only server id PowerDNS Authoritative has. */
      readonly server_id?: string;
    }
  | {
      readonly provider: 'cloudflare';
      /** An API token with Zone.DNS edit on the zone. */
      readonly api_token: string;
      readonly zone_id: string;
      /** Default the SDK's `https://api.cloudflare.com/client/v4`; settable for tests and gateways. */
      readonly api_url?: string;
    }
  | { readonly provider: 'none' };

const REDACTED = '[redacted]';

export function redactProxyConfig(c: ProxyConfig): ProxyConfig {
  return c.provider === 'npmplus' ? { ...c, password: REDACTED } : c;
}

export function redactDnsConfig(c: DnsConfig): DnsConfig {
  switch (c.provider) {
    case 'powerdns':
      return { ...c, api_key: REDACTED };
    case 'cloudflare':
      return { ...c, api_token: REDACTED };
    case 'none':
      return c;
  }
}

export function secretsOfProxyConfig(c: ProxyConfig): string[] {
  return c.provider === 'npmplus' ? [c.password] : [];
}

export function secretsOfDnsConfig(c: DnsConfig): string[] {
  switch (c.provider) {
    case 'powerdns':
      return [c.api_key];
    case 'cloudflare':
      return [c.api_token];
    case 'none':
      return [];
  }
}
