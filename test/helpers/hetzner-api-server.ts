/**
 * A local stand-in for the Hetzner Cloud API, for the hetzner provider's contract tests: only the
 * endpoints denv uses, as https://docs.hetzner.cloud/ documents them (Servers › Create, Get,
 * List, Delete; Actions › Get):
 *   POST   /v1/servers              {name, server_type, image, location, start_after_create,
 *                                   user_data, labels, ssh_keys, public_net} → 201 {server,
 *                                   action (create_server), next_actions (start_server when
 *                                   start_after_create), root_password (null with ssh_keys)}
 *   GET    /v1/servers/:id          {server}
 *   GET    /v1/servers              `label_selector` (comma-joined `k=v`, `k==v`, `k!=v`, `k`,
 *                                   `!k`), `page`, `per_page` (default 25, at most 50) →
 *                                   {servers, meta: {pagination}}
 *   DELETE /v1/servers/:id          {action (delete_server)}; the server is gone at once
 *   GET    /v1/actions/:id          {action}: `running` until it has been read `runningPolls`
 *                                   times (default 1), then what `outcome` says
 * Errors are the documented envelope `{error: {code, message, details}}`: 401 `unauthorized`
 * without `Authorization: Bearer <token>`, 404 `not_found`, 400 `invalid_input` (missing fields,
 * a name that is no hostname, labels outside the documented syntax, user_data over 32 KiB), 409
 * `uniqueness_error` for a name in use. Servers get ids from 1, a public IPv4 in 203.0.113.0/24
 * (TEST-NET-3) and an IPv6 /64 in 2001:db8::/32. Every request is recorded; listens on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { startRecordingServer, type RecordedRequest } from './recording-server.js';

export interface FakeServer {
  id: number;
  name: string;
  status: 'initializing' | 'off' | 'running';
  created: string;
  labels: Record<string, string>;
  server_type: string;
  image: string;
  location: string;
  user_data: string | null;
  ssh_keys: string[];
  ipv4: string | null;
  ipv6: string | null;
}

export interface FakeAction {
  id: number;
  command: string;
  status: 'running' | 'success' | 'error';
  progress: number;
  started: string;
  finished: string | null;
  resources: { id: number; type: string }[];
  error: { code: string; message: string } | null;
  /** Reads still answered `running`; then `end` applies. */
  pollsLeft: number;
  end: ActionOutcome;
}

/** How an action ends: `success`, an error, or `running` for ever. */
export type ActionOutcome = 'success' | 'running' | { readonly code: string; readonly message: string };

export interface FakeHetzner {
  /** The base URL to give the provider: `http://127.0.0.1:<port>/v1`. */
  readonly apiUrl: string;
  readonly requests: RecordedRequest[];
  readonly servers: Map<number, FakeServer>;
  readonly actions: Map<number, FakeAction>;
  /** Decides each new action's end (default: success); tests replace it. */
  outcome: (command: string, server: FakeServer) => ActionOutcome;
  /** A server made outside the API under test (what an earlier run left, or someone else's). */
  addServer(s: { name: string; labels?: Record<string, string>; ipv4?: boolean }): FakeServer;
  close(): Promise<void>;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
// Labels, as documented: key `[prefix/]name`, name and value ≤ 63 chars of [a-z0-9A-Z-_.] starting
// and ending alphanumeric (a value may be empty); the prefix a DNS subdomain.
const LABEL_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/;
const labelKeyOk = (k: string) => {
  const slash = k.lastIndexOf('/');
  return slash < 0 ? LABEL_NAME.test(k) : HOSTNAME.test(k.slice(0, slash)) && LABEL_NAME.test(k.slice(slash + 1));
};

type Selector = (labels: Record<string, string>) => boolean;

/** A label selector (the subset documented without sets): null when it holds anything else. */
function parseSelector(text: string): Selector | null {
  const tests: Selector[] = [];
  for (const raw of text.split(',')) {
    const e = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([^!=\s]+)\s*!=\s*(\S*)$/.exec(e))) {
      const [, k, v] = m;
      tests.push((l) => l[k!] !== v);
    } else if ((m = /^([^!=\s]+)\s*==?\s*(\S*)$/.exec(e))) {
      const [, k, v] = m;
      tests.push((l) => l[k!] === v);
    } else if ((m = /^!([^!=\s]+)$/.exec(e))) {
      const k = m[1]!;
      tests.push((l) => !(k in l));
    } else if ((m = /^([^!=\s]+)$/.exec(e))) {
      const k = m[1]!;
      tests.push((l) => k in l);
    } else return null;
  }
  return (l) => tests.every((t) => t(l));
}

export async function startFakeHetzner(o: { token: string; runningPolls?: number }): Promise<FakeHetzner> {
  const servers = new Map<number, FakeServer>();
  const actions = new Map<number, FakeAction>();
  let nextServer = 1;
  let nextAction = 1;
  const runningPolls = o.runningPolls ?? 1;

  const serverJson = (s: FakeServer) => ({
    id: s.id,
    name: s.name,
    status: s.status,
    created: s.created,
    labels: s.labels,
    public_net: {
      ipv4: s.ipv4 ? { id: 1000 + s.id, ip: s.ipv4, blocked: false, dns_ptr: `static.${s.ipv4}.clients.your-server.de` } : null,
      ipv6: s.ipv6 ? { id: 2000 + s.id, ip: s.ipv6, blocked: false, dns_ptr: [] } : null,
      floating_ips: [],
      firewalls: [],
    },
    private_net: [],
    server_type: { name: s.server_type },
    // The stand-in's own naming: one data center per location.
    datacenter: { name: `${s.location}-dc1`, location: { name: s.location } },
    image: { name: s.image, type: 'system' },
    protection: { delete: false, rebuild: false },
    locked: false,
  });
  const actionJson = (a: FakeAction) => {
    const { pollsLeft: _p, end: _e, ...json } = a;
    return json;
  };
  const makeServer = (s: { name: string; labels?: Record<string, string>; server_type?: string; image?: string; location?: string; user_data?: string | null; ssh_keys?: string[]; ipv4?: boolean; ipv6?: boolean; status?: FakeServer['status'] }): FakeServer => {
    const id = nextServer++;
    const server: FakeServer = {
      id,
      name: s.name,
      status: s.status ?? 'running',
      created: new Date().toISOString(),
      labels: s.labels ?? {},
      server_type: s.server_type ?? 'cx22',
      image: s.image ?? 'ubuntu-24.04',
      location: s.location ?? 'fsn1',
      user_data: s.user_data ?? null,
      ssh_keys: s.ssh_keys ?? [],
      ipv4: s.ipv4 === false ? null : `203.0.113.${((id - 1) % 254) + 1}`,
      ipv6: s.ipv6 === false ? null : `2001:db8:${id.toString(16)}::/64`,
    };
    servers.set(id, server);
    return server;
  };
  const fake: FakeHetzner = {
    apiUrl: '',
    requests: [],
    servers,
    actions,
    outcome: () => 'success',
    addServer: (s) => makeServer({ ...s }),
    close: async () => {},
  };
  const makeAction = (command: string, server: FakeServer): FakeAction => {
    const a: FakeAction = { id: nextAction++, command, status: 'running', progress: 0, started: new Date().toISOString(), finished: null, resources: [{ id: server.id, type: 'server' }], error: null, pollsLeft: runningPolls, end: fake.outcome(command, server) };
    actions.set(a.id, a);
    return a;
  };
  /** One read of a running action: it advances, and ends when its reads are used up. */
  const advance = (a: FakeAction) => {
    if (a.status !== 'running' || a.end === 'running') return;
    if (a.pollsLeft-- > 0) return;
    a.finished = new Date().toISOString();
    if (a.end === 'success') {
      a.status = 'success';
      a.progress = 100;
      const server = servers.get(a.resources[0]!.id);
      if (server && a.command === 'create_server') server.status = 'off';
      if (server && a.command === 'start_server') server.status = 'running';
    } else {
      a.status = 'error';
      a.error = { code: a.end.code, message: a.end.message };
    }
  };

  const server = await startRecordingServer((req, res, url, body) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const fail = (status: number, code: string, message: string, details: unknown = {}) => send(status, { error: { code, message, details } });
    const invalid = (fields: { name: string; messages: string[] }[]) => fail(400, 'invalid_input', 'invalid input in fields', { fields });
    if (req.headers.authorization !== `Bearer ${o.token}`) return fail(401, 'unauthorized', 'unable to authenticate');

    const m = /^\/v1\/(servers|actions)(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return fail(404, 'not_found', 'not found');
    const [, kind, idText] = m;
    const id = idText !== undefined && /^[0-9]+$/.test(idText) ? Number(idText) : null;
    if (idText !== undefined && id === null) return invalid([{ name: 'id', messages: ['invalid id'] }]);

    if (kind === 'actions') {
      const a = id === null ? undefined : actions.get(id);
      if (req.method !== 'GET' || !a) return fail(404, 'not_found', `action with ID '${idText}' not found`);
      advance(a);
      return send(200, { action: actionJson(a) });
    }

    if (id !== null) {
      const s = servers.get(id);
      if (!s) return fail(404, 'not_found', `server with ID '${id}' not found`);
      if (req.method === 'GET') return send(200, { server: serverJson(s) });
      if (req.method === 'DELETE') {
        servers.delete(id);
        return send(200, { action: actionJson(makeAction('delete_server', s)) });
      }
      return fail(404, 'not_found', 'not found');
    }

    if (req.method === 'GET') {
      const q = url.searchParams;
      const selector = q.has('label_selector') ? parseSelector(q.get('label_selector')!) : () => true;
      if (!selector) return invalid([{ name: 'label_selector', messages: ['invalid label selector'] }]);
      const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
      const perPage = Math.min(50, Math.max(1, Number(q.get('per_page') ?? 25) || 25));
      const matching = [...servers.values()].filter((s) => selector(s.labels)).sort((a, b) => a.id - b.id);
      const lastPage = Math.max(1, Math.ceil(matching.length / perPage));
      return send(200, {
        servers: matching.slice((page - 1) * perPage, page * perPage).map(serverJson),
        meta: { pagination: { page, per_page: perPage, previous_page: page > 1 ? page - 1 : null, next_page: page < lastPage ? page + 1 : null, last_page: lastPage, total_entries: matching.length } },
      });
    }

    if (req.method === 'POST') {
      const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
      const bad: { name: string; messages: string[] }[] = [];
      for (const f of ['name', 'server_type', 'image'] as const) if (typeof b[f] !== 'string' || !b[f]) bad.push({ name: f, messages: ['Missing data for required field.'] });
      if (typeof b.name === 'string' && b.name && !HOSTNAME.test(b.name)) bad.push({ name: 'name', messages: ['must be a valid hostname'] });
      const labels = (b.labels ?? {}) as Record<string, unknown>;
      if (typeof labels !== 'object' || Array.isArray(labels) || Object.entries(labels).some(([k, v]) => !labelKeyOk(k) || typeof v !== 'string' || !LABEL_VALUE.test(v))) bad.push({ name: 'labels', messages: ['invalid labels'] });
      if (b.user_data !== undefined && (typeof b.user_data !== 'string' || Buffer.byteLength(b.user_data) > 32 * 1024)) bad.push({ name: 'user_data', messages: ['must be a string of at most 32 KiB'] });
      if (bad.length) return invalid(bad);
      if ([...servers.values()].some((s) => s.name === b.name)) return fail(409, 'uniqueness_error', 'server name is already used', { fields: [{ name: 'name' }] });
      const publicNet = (b.public_net ?? {}) as { enable_ipv4?: boolean; enable_ipv6?: boolean };
      const sshKeys = Array.isArray(b.ssh_keys) ? (b.ssh_keys as string[]) : [];
      const s = makeServer({
        name: b.name as string,
        labels: labels as Record<string, string>,
        server_type: b.server_type as string,
        image: b.image as string,
        location: typeof b.location === 'string' ? b.location : 'fsn1',
        user_data: typeof b.user_data === 'string' ? b.user_data : null,
        ssh_keys: sshKeys,
        ipv4: publicNet.enable_ipv4 !== false,
        ipv6: publicNet.enable_ipv6 !== false,
        status: 'initializing',
      });
      const create = makeAction('create_server', s);
      const next = b.start_after_create === false ? [] : [makeAction('start_server', s)];
      return send(201, { server: serverJson(s), action: actionJson(create), next_actions: next.map(actionJson), root_password: sshKeys.length ? null : randomBytes(12).toString('base64url') });
    }
    return fail(404, 'not_found', 'not found');
  });

  return Object.assign(fake, { apiUrl: `http://127.0.0.1:${server.port}/v1`, requests: server.requests, close: () => server.close() });
}
