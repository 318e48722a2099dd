/** The edge providers' HTTP client against local servers: redaction of echoed secrets, error texts, cancellation. */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestJson, type HttpEndpoint } from '../../src/edge/http-json.js';
import { redactDnsConfig, redactProxyConfig, secretsOfDnsConfig, secretsOfProxyConfig } from '../../src/edge/edge-config.js';
import { openDnsProvider, openProxyProvider } from '../../src/edge/open-providers.js';
import { PROXY_KINDS } from '../../src/edge/proxy-provider.js';
import { DNS_KINDS } from '../../src/edge/dns-provider.js';

const SECRET = 's3cret-api-key-91f0';
let server: http.Server;
let ep: HttpEndpoint;

beforeAll(async () => {
  // Echoes the request's headers and body back inside an error, as a careless server might.
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/slow') return; // never answers
      if (req.url === '/text') return res.writeHead(200).end('not json');
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `bad request ${JSON.stringify(req.headers)} ${body} ${encodeURIComponent(SECRET)}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ep = { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, label: 'test API at here', headers: { 'x-api-key': SECRET }, timeoutMs: 300, secrets: [SECRET] };
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('requestJson', () => {
  it('an error that echoes the secret (plain or URL-encoded) comes out redacted', async () => {
    const err = (await requestJson(ep, { method: 'POST', path: '/x', body: { password: SECRET } }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^test API at here: POST \/x answered 500: bad request /);
    expect(err.message).toContain('[redacted]');
    expect(err.message).not.toContain(SECRET);
    expect(err).toMatchObject({ reason: 'rejected', status: 500, retryable: true });
  });

  it('a 2xx body that is not JSON is a protocol error', async () => {
    await expect(requestJson(ep, { method: 'GET', path: '/text' })).rejects.toMatchObject({ reason: 'protocol', message: 'test API at here: GET /text answered 200 with a body that is not JSON: not json' });
  });

  it('the caller’s signal cancels; the timeout times out', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    await expect(requestJson({ ...ep, timeoutMs: 5000 }, { method: 'GET', path: '/slow', signal: ctl.signal })).rejects.toMatchObject({ reason: 'cancelled', retryable: false });
    await expect(requestJson(ep, { method: 'GET', path: '/slow' })).rejects.toMatchObject({ reason: 'timeout', retryable: true, message: 'test API at here: GET /slow timed out after 300 ms' });
  });
});

describe('edge config', () => {
  it('redacts secrets for display and lists them for providers', () => {
    expect(redactProxyConfig({ provider: 'npmplus', url: 'https://npm', email: 'a@b', password: 'pw-1234' })).toEqual({ provider: 'npmplus', url: 'https://npm', email: 'a@b', password: '[redacted]' });
    expect(redactDnsConfig({ provider: 'powerdns', api_url: 'http://x', api_key: 'k-1234', zone: 'example.com' })).toMatchObject({ api_key: '[redacted]' });
    expect(redactDnsConfig({ provider: 'cloudflare', api_token: 't-1234', zone_id: 'z' })).toMatchObject({ api_token: '[redacted]' });
    expect(secretsOfProxyConfig({ provider: 'caddy', admin_url: 'http://127.0.0.1:2019' })).toEqual([]);
    expect(secretsOfDnsConfig({ provider: 'cloudflare', api_token: 't-1234', zone_id: 'z' })).toEqual(['t-1234']);
  });

  it('every kind opens a provider of that kind (built without calling anything)', () => {
    const proxies = { caddy: { provider: 'caddy', admin_url: 'http://127.0.0.1:2019' }, npmplus: { provider: 'npmplus', url: 'http://127.0.0.1:81', email: 'a@b', password: 'p' }, none: { provider: 'none' } } as const;
    const dns = { powerdns: { provider: 'powerdns', api_url: 'http://127.0.0.1:8081', api_key: 'k', zone: 'example.com' }, cloudflare: { provider: 'cloudflare', api_token: 't', zone_id: 'z', api_url: 'http://127.0.0.1:1/client/v4' }, none: { provider: 'none' } } as const;
    for (const kind of PROXY_KINDS) expect(openProxyProvider(proxies[kind]).kind).toBe(kind);
    for (const kind of DNS_KINDS) expect(openDnsProvider(dns[kind]).kind).toBe(kind);
    expect(openProxyProvider(proxies.caddy).endpoint).toBe('caddy admin API at 127.0.0.1:2019');
  });
});
