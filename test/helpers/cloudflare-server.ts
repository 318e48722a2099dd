/**
 * A local stand-in for Cloudflare's v4 API, for the cloudflare provider's contract tests: only
 * the endpoints denv uses, as Cloudflare documents them (API reference: Zones › Get Zone;
 * DNS › Records › List, Batch):
 *   GET  /client/v4/zones/:zone_id                       the zone
 *   GET  /client/v4/zones/:zone_id/dns_records           filters `name.exact`, `comment.exact`,
 *                                                        `type`; pages with `page`/`per_page`
 *   POST /client/v4/zones/:zone_id/dns_records/batch     {deletes, patches, puts, posts}, all or
 *                                                        nothing, deletes first
 * Every answer is the v4 envelope `{success, errors: [{code, message}], messages, result,
 * result_info?}`; auth is `Authorization: Bearer <token>` (else 401, code 10000). Like the real
 * API, a record name outside the zone gets the zone appended. Everything is recorded so tests
 * can assert the exact requests. Listens on 127.0.0.1 only.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { startRecordingServer, type RecordedRequest } from './recording-server.js';

export interface FakeRecord {
  id: string;
  zone_id: string;
  zone_name: string;
  name: string;
  type: string;
  content: string;
  proxiable: boolean;
  proxied: boolean;
  ttl: number;
  comment: string | null;
  tags: string[];
  created_on: string;
  modified_on: string;
  meta: Record<string, unknown>;
}

export interface FakeCloudflare {
  /** The base URL to give the SDK: `http://127.0.0.1:<port>/client/v4`. */
  readonly apiUrl: string;
  readonly requests: RecordedRequest[];
  readonly records: Map<string, FakeRecord>;
  addRecord(r: { name: string; type: string; content: string; comment?: string | null; ttl?: number }): FakeRecord;
  close(): Promise<void>;
}

export async function startFakeCloudflare(o: { token: string; zoneId: string; zoneName: string; maxPerPage?: number }): Promise<FakeCloudflare> {
  const records = new Map<string, FakeRecord>();
  const maxPerPage = o.maxPerPage ?? 5000;

  const make = (r: { name: string; type: string; content: string; comment?: string | null; ttl?: number; proxied?: boolean }): FakeRecord => {
    const now = new Date().toISOString();
    const name = r.name.toLowerCase() === o.zoneName || r.name.toLowerCase().endsWith(`.${o.zoneName}`) ? r.name.toLowerCase() : `${r.name.toLowerCase()}.${o.zoneName}`;
    return { id: randomBytes(16).toString('hex'), zone_id: o.zoneId, zone_name: o.zoneName, name, type: r.type, content: r.content, proxiable: true, proxied: r.proxied ?? false, ttl: r.ttl ?? 1, comment: r.comment ?? null, tags: [], created_on: now, modified_on: now, meta: {} };
  };

  const server = await startRecordingServer((req, res, url, body) => {
    const send = (status: number, result: unknown, extra: Record<string, unknown> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: status < 400, errors: [], messages: [], result, ...extra }));
    };
    const fail = (status: number, code: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, errors: [{ code, message }], messages: [], result: null }));
    };
    if (req.headers.authorization !== `Bearer ${o.token}`) return fail(401, 10000, 'Authentication error');

    const m = /^\/client\/v4\/zones\/([^/]+)(\/dns_records(\/batch)?)?$/.exec(url.pathname);
    if (!m || m[1] !== o.zoneId) return fail(404, 7003, 'Could not route to /zones/..., perhaps your object identifier is invalid?');
    if (!m[2] && req.method === 'GET') return send(200, { id: o.zoneId, name: o.zoneName, status: 'active', paused: false, type: 'full', name_servers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'] });
    if (m[2] && !m[3] && req.method === 'GET') {
      const q = url.searchParams;
      const matching = [...records.values()].filter(
        (r) => (!q.has('name.exact') || r.name === q.get('name.exact')!.toLowerCase()) && (!q.has('comment.exact') || r.comment === q.get('comment.exact')) && (!q.has('type') || r.type === q.get('type')),
      );
      const perPage = Math.min(Number(q.get('per_page') ?? 100), maxPerPage);
      const page = Number(q.get('page') ?? 1);
      const slice = matching.slice((page - 1) * perPage, page * perPage);
      return send(200, slice, { result_info: { page, per_page: perPage, count: slice.length, total_count: matching.length, total_pages: Math.max(1, Math.ceil(matching.length / perPage)) } });
    }
    if (m[3] && req.method === 'POST') {
      const b = (body ?? {}) as { deletes?: { id: string }[]; patches?: unknown[]; puts?: unknown[]; posts?: { name: string; type: string; content: string; ttl?: number; proxied?: boolean; comment?: string }[] };
      // Validate everything first: the batch is all or nothing.
      for (const d of b.deletes ?? []) if (!records.has(d.id)) return fail(404, 81044, 'Record does not exist.');
      const remaining = [...records.values()].filter((r) => !(b.deletes ?? []).some((d) => d.id === r.id));
      const created: FakeRecord[] = [];
      for (const p of b.posts ?? []) {
        if (p.type === 'A' && isIP(p.content) !== 4) return fail(400, 9005, 'Content for A record is invalid. Must be a valid IPv4 address');
        if (p.type === 'AAAA' && isIP(p.content) !== 6) return fail(400, 9005, 'Content for AAAA record is invalid. Must be a valid IPv6 address');
        const rec = make(p);
        if ([...remaining, ...created].some((r) => r.name === rec.name && r.type === rec.type && r.content === rec.content)) return fail(400, 81058, 'An identical record already exists.');
        created.push(rec);
      }
      const deleted = (b.deletes ?? []).map((d) => records.get(d.id)!);
      for (const d of deleted) records.delete(d.id);
      for (const r of created) records.set(r.id, r);
      return send(200, { deletes: deleted, patches: [], puts: [], posts: created });
    }
    return fail(405, 10405, 'Method not allowed for this endpoint');
  });
  return {
    apiUrl: `http://127.0.0.1:${server.port}/client/v4`,
    requests: server.requests,
    records,
    addRecord(r) {
      const rec = make(r);
      records.set(rec.id, rec);
      return rec;
    },
    close: () => server.close(),
  };
}
