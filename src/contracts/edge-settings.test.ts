import { describe, expect, it } from 'vitest';
import { putEdgeBody } from './edge-settings.js';
import { describeZodError } from './validation.js';

const SECRET = 'pdns-key-7c1e';
const problem = (body: unknown): string | null => {
  const r = putEdgeBody.safeParse(body);
  return r.success ? null : describeZodError(r.error);
};

describe('PUT /v1/edge body', () => {
  it('takes each provider with its own fields, and an empty body', () => {
    for (const body of [
      {},
      { base_domain: null, proxy: null, dns: null },
      { proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1:2019' } },
      { proxy: { provider: 'caddy', admin_url: 'http://[::1]:2019/', http_port: 8080, https_port: 8443 } },
      { proxy: { provider: 'npmplus', url: 'https://npm.example.com:81/base', email: 'admin@example.com', password: 'p w' } },
      { proxy: { provider: 'none' } },
      { dns: { provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: SECRET, zone: 'example.com', server_id: 'localhost' } },
      { dns: { provider: 'cloudflare', api_token: 'tok', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' } },
      { dns: { provider: 'none' } },
      { base_domain: 'apps.example.com' },
      { base_domain: 'localhost' },
    ]) expect(problem(body), JSON.stringify(body)).toBeNull();
  });

  it('normalizes DNS names: lower case, no trailing dot', () => {
    const out = putEdgeBody.parse({ base_domain: 'Apps.Example.COM.', dns: { provider: 'powerdns', api_url: 'http://x:8081', api_key: 'k', zone: 'Example.com.' } });
    expect(out.base_domain).toBe('apps.example.com');
    expect(out.dns).toMatchObject({ zone: 'example.com' });
  });

  it.each([
    [{ colour: 'red' }, 'unknown field "colour"'],
    [{ proxy: { provider: 'traefik', url: 'http://x' } }, 'proxy.provider: Invalid discriminator value'],
    [{ proxy: { provider: 'none', password: 'x' } }, 'proxy: unknown field "password"'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://x', url: 'http://y' } }, 'proxy: unknown field "url"'],
    [{ proxy: { provider: 'caddy' } }, 'proxy.admin_url: Invalid input'],
    [{ proxy: { provider: 'caddy', admin_url: 'ftp://127.0.0.1:2019' } }, 'proxy.admin_url: expected an http:// or https:// URL'],
    [{ proxy: { provider: 'caddy', admin_url: 'not a url' } }, 'proxy.admin_url: expected an http:// or https:// URL'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1:2019?x=1' } }, 'proxy.admin_url: must not carry a query or fragment'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1', http_port: 0 } }, 'proxy.http_port: expected a port between 1 and 65535'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1', https_port: 65536 } }, 'proxy.https_port: expected a port between 1 and 65535'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1', http_port: 80.5 } }, 'proxy.http_port: expected a port between 1 and 65535'],
    [{ proxy: { provider: 'caddy', admin_url: 'http://127.0.0.1', http_port: 443 } }, 'proxy.https_port: must differ from http_port'],
    [{ proxy: { provider: 'npmplus', url: 'http://x', email: 'nobody', password: 'p' } }, 'proxy.email: expected the e-mail address'],
    [{ proxy: { provider: 'npmplus', url: 'http://x', email: 'a@example.com', password: '' } }, 'proxy.password: must not be empty'],
    [{ dns: { provider: 'powerdns', api_url: 'http://x', api_key: 'k', zone: '*.example.com' } }, 'dns.zone: expected a DNS name'],
    [{ dns: { provider: 'powerdns', api_url: 'http://x', api_key: 'k', zone: '10.0.0.1' } }, 'dns.zone: expected a DNS name'],
    [{ dns: { provider: 'powerdns', api_url: 'http://x', api_key: 'k', zone: 'a..b' } }, 'dns.zone: expected a DNS name'],
    [{ dns: { provider: 'powerdns', api_url: 'http://x', api_key: 'k', zone: 'x.com', server_id: '../y' } }, 'dns.server_id: expected a server id'],
    [{ dns: { provider: 'cloudflare', api_token: 'two words', zone_id: 'z' } }, 'dns.api_token: expected printable ASCII'],
    [{ dns: { provider: 'cloudflare', api_token: 't', zone_id: 'z/../x' } }, 'dns.zone_id: expected a zone id'],
    [{ base_domain: '-bad-.example.com' }, 'base_domain: expected a DNS name'],
    [{ base_domain: 'x'.repeat(64) + '.com' }, 'base_domain: expected a DNS name'],
    [{ base_domain: 42 }, 'base_domain: Invalid input'],
  ])('refuses %j naming the path', (body, message) => {
    expect(problem(body)).toContain(message);
  });

  it('never repeats a refused value: URLs may carry credentials, keys are secrets', () => {
    const url = `http://admin:${SECRET}@127.0.0.1:8081`;
    const bad = [
      { dns: { provider: 'powerdns', api_url: url, api_key: 'k', zone: 'example.com' } },
      { dns: { provider: 'powerdns', api_url: 'http://x', api_key: `${SECRET} `, zone: 'example.com' } },
      { dns: { provider: 'powerdns', api_url: `gopher://${SECRET}`, api_key: 'k', zone: 'example.com' } },
      { dns: { provider: 'cloudflare', api_token: `${SECRET}\n`, zone_id: 'z' } },
      { proxy: { provider: 'npmplus', url: 'http://x', email: SECRET, password: SECRET } },
    ];
    for (const body of bad) {
      const message = problem(body);
      expect(message, JSON.stringify(body)).not.toBeNull();
      expect(message).not.toContain(SECRET);
    }
    expect(problem(bad[0])).toBe('dns.api_url: must not carry a user or password: secrets have fields of their own');
  });
});
