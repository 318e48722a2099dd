/**
 * A local stand-in for the NPMplus API, for the npmplus provider's contract tests: it speaks
 * only the endpoints denv uses, as NPMplus's published schema and routes define them
 * (backend/schema/paths/tokens/post.json, …/nginx/proxy-hosts/post.json and hostID/put.json,
 * backend/routes/tokens.js, backend/routes/nginx/proxy_hosts.js, backend/app.js):
 *   GET    /api                         {status: "OK", setup, version}            (no auth)
 *   POST   /api/tokens {identity, secret}
 *            `cookie` mode (NPMplus):   200 {expires} + Set-Cookie __Host-Http-token=s%3A<jwt>.<sig>
 *            `bearer` mode (NPM):       200 {token, expires}
 *            wrong credentials:         401 {error: {code: 401, message}}
 *   GET    /api/nginx/proxy-hosts       [proxy host, …]
 *   POST   /api/nginx/proxy-hosts       201 proxy host  (required: domain_names, forward_scheme,
 *                                       forward_host, forward_port; unknown fields → 400, as the
 *                                       schema's additionalProperties: false; a domain already
 *                                       used by another host → 400)
 *   PUT    /api/nginx/proxy-hosts/:id   200 proxy host
 *   DELETE /api/nginx/proxy-hosts/:id   200 true
 * Every other call without valid credentials answers 401 {error: {message}}. Everything is
 * recorded so tests can assert the exact requests. Listens on 127.0.0.1 only.
 */
import { randomBytes } from 'node:crypto';
import { startRecordingServer, type RecordedRequest } from './recording-server.js';

export type { RecordedRequest };

export interface FakeNpmplus {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly hosts: Map<number, Record<string, unknown>>;
  /** Invalidate every issued token: the next call answers 401 until the client logs in again. */
  expireTokens(): void;
  /** Add a proxy host as if a person had made it in the UI. */
  addForeignHost(fields: Record<string, unknown>): number;
  close(): Promise<void>;
}

const POST_FIELDS = new Set(['domain_names', 'forward_scheme', 'forward_host', 'forward_port', 'certificate_id', 'ssl_forced', 'hsts_enabled', 'hsts_subdomains', 'http2_support', 'block_exploits', 'caching_enabled', 'allow_websocket_upgrade', 'access_list_id', 'advanced_config', 'enabled', 'meta', 'locations']);
const REQUIRED = ['domain_names', 'forward_scheme', 'forward_host', 'forward_port'];

/** `twoFactor`: the account has TOTP on, so `POST /api/tokens` answers a challenge instead of a token. */
export async function startFakeNpmplus(o: { email: string; password: string; mode?: 'cookie' | 'bearer'; version?: string; twoFactor?: boolean }): Promise<FakeNpmplus> {
  const mode = o.mode ?? 'cookie';
  const hosts = new Map<number, Record<string, unknown>>();
  let valid = new Set<string>();
  let nextId = 1;
  let nextCert = 100;

  const stored = (id: number, fields: Record<string, unknown>, created?: Record<string, unknown>): Record<string, unknown> => {
    const now = new Date().toISOString();
    const cert = fields.certificate_id === 'new' ? nextCert++ : (fields.certificate_id ?? created?.certificate_id ?? 0);
    return {
      id,
      created_on: created?.created_on ?? now,
      modified_on: now,
      owner_user_id: 1,
      domain_names: [],
      forward_scheme: 'http',
      forward_host: '',
      forward_port: 80,
      access_list_id: 0,
      ssl_forced: false,
      caching_enabled: false,
      block_exploits: false,
      advanced_config: '',
      meta: { nginx_online: true, nginx_err: null },
      allow_websocket_upgrade: false,
      http2_support: false,
      enabled: true,
      locations: [],
      hsts_enabled: false,
      hsts_subdomains: false,
      ...created,
      ...fields,
      certificate_id: cert,
    };
  };

  const server = await startRecordingServer((req, res, url, body) => {
    const send = (status: number, payload: unknown, headers: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, message: string) => send(status, { error: { code: status, message } });

    if (req.method === 'GET' && url.pathname === '/api') return send(200, { status: 'OK', setup: true, version: o.version ?? '2.12.0' });
    if (req.method === 'POST' && url.pathname === '/api/tokens') {
      const b = body as { identity?: unknown; secret?: unknown } | null;
      if (!b || typeof b.identity !== 'string' || typeof b.secret !== 'string' || Object.keys(b).some((k) => k !== 'identity' && k !== 'secret')) return error(400, 'data must have required property identity, secret');
      if (b.identity !== o.email || b.secret !== o.password) return error(401, 'Invalid email or password');
      if (o.twoFactor) return send(200, { requires2fa: true, expires: new Date(Date.now() + 300_000).toISOString() });
      const jwt = `eyJ${randomBytes(12).toString('hex')}`;
      valid.add(jwt);
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      if (mode === 'bearer') return send(200, { token: jwt, expires });
      return send(200, { expires }, { 'set-cookie': [`__Host-Http-token=s%3A${jwt}.${randomBytes(6).toString('hex')}; Path=/; Expires=${new Date(expires).toUTCString()}; HttpOnly; Secure; SameSite=Strict`] });
    }
    const presented =
      mode === 'bearer'
        ? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        : /(?:^|;\s*)__Host-Http-token=s%3A([^.;]+)\.[^;]*/.exec(req.headers.cookie ?? '')?.[1];
    if (!presented || !valid.has(presented)) return error(401, presented ? 'Invalid or expired token' : 'Missing token');

    const hostMatch = /^\/api\/nginx\/proxy-hosts\/(\d+)$/.exec(url.pathname);
    if (url.pathname === '/api/nginx/proxy-hosts' && req.method === 'GET') return send(200, [...hosts.values()]);
    if ((url.pathname === '/api/nginx/proxy-hosts' && req.method === 'POST') || (hostMatch && req.method === 'PUT')) {
      const fields = (body ?? {}) as Record<string, unknown>;
      const unknown = Object.keys(fields).filter((k) => !POST_FIELDS.has(k));
      if (unknown.length > 0) return error(400, `data must NOT have additional properties (${unknown.join(', ')})`);
      const id = hostMatch ? Number(hostMatch[1]) : nextId++;
      const existing = hostMatch ? hosts.get(id) : undefined;
      if (hostMatch && !existing) return error(404, `Not Found - ${id}`);
      if (!hostMatch) {
        const missing = REQUIRED.filter((k) => !(k in fields));
        if (missing.length > 0) return error(400, `data must have required property '${missing[0]}'`);
      }
      const domains = (fields.domain_names ?? existing?.domain_names ?? []) as string[];
      for (const [otherId, other] of hosts) {
        if (otherId !== id && (other.domain_names as string[]).some((d) => domains.includes(d))) return error(400, `${domains.find((d) => (other.domain_names as string[]).includes(d))} is already in use`);
      }
      const host = stored(id, fields, existing);
      hosts.set(id, host);
      return send(hostMatch ? 200 : 201, host);
    }
    if (hostMatch && req.method === 'DELETE') {
      if (!hosts.delete(Number(hostMatch[1]))) return error(404, `Not Found - ${hostMatch[1]}`);
      return send(200, true);
    }
    return error(404, `Not Found - ${url.pathname}`);
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: server.requests,
    hosts,
    expireTokens: () => {
      valid = new Set();
    },
    addForeignHost(fields) {
      const id = nextId++;
      hosts.set(id, stored(id, fields));
      return id;
    },
    close: () => server.close(),
  };
}
