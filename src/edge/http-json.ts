/**
 * The one way edge providers talk HTTP: JSON in and out, a timeout on every call, the caller's
 * signal honoured, and failures turned into `EdgeError`s that name the endpoint and say what
 * happened (`caddy admin API at 127.0.0.1:2019: connection refused`) with every secret of the
 * provider redacted — including from whatever the server echoed back.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { EdgeError, redact, type EdgeErrorReason } from './edge-error.js';
import type { CallOptions } from './change.js';
import { linkedSignal } from '../lib/linked-abort.js';

export interface HttpEndpoint {
  /** Base URL; request paths are appended to it (`http://127.0.0.1:2019`, `https://npm.example.com/api`). */
  readonly baseUrl: string;
  /** How errors name it: `caddy admin API at 127.0.0.1:2019`. */
  readonly label: string;
  /** Sent with every request (may carry a secret: it never reaches a message). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Redacted from every message. */
  readonly secrets: readonly string[];
}

export interface JsonRequest extends CallOptions {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses answered rather than thrown (besides 2xx), e.g. 404 for "is it there?". */
  readonly accept?: readonly number[];
}

export interface JsonResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, or null for an empty body. */
  readonly body: unknown;
}

/** `host:port` of a URL, for labels (never its credentials or path). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export async function requestJson(ep: HttpEndpoint, req: JsonRequest): Promise<JsonResponse> {
  const deadline = linkedSignal(req.signal ? [req.signal] : [], ep.timeoutMs);
  const fail = (reason: EdgeErrorReason, text: string, status?: number) => new EdgeError(reason, redact(`${ep.label}: ${text}`, ep.secrets), { status: status ?? null });
  let res: RawResponse;
  try {
    res = await send(new URL(ep.baseUrl.replace(/\/$/, '') + req.path), {
      method: req.method,
      headers: { accept: 'application/json', ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}), ...ep.headers, ...req.headers },
      body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
      signal: deadline.signal,
    });
  } catch (err) {
    if (req.signal?.aborted) throw fail('cancelled', `${req.method} ${req.path} cancelled`);
    if (deadline.timedOut) throw fail('timeout', `${req.method} ${req.path} timed out after ${ep.timeoutMs} ms`);
    throw fail('unreachable', describeNetworkError(err));
  } finally {
    deadline.dispose();
  }
  const ok = res.status >= 200 && res.status < 300;
  let body: unknown = null;
  if (res.text.length > 0) {
    try {
      body = JSON.parse(res.text);
    } catch {
      if (ok) throw fail('protocol', `${req.method} ${req.path} answered ${res.status} with a body that is not JSON: ${snippet(res.text)}`, res.status);
      body = res.text;
    }
  }
  if (ok || req.accept?.includes(res.status)) return { status: res.status, headers: res.headers, body };
  const reason = res.status === 401 || res.status === 403 ? 'unauthorized' : 'rejected';
  throw fail(reason, `${req.method} ${req.path} answered ${res.status}: ${errorText(body)}`, res.status);
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/**
 * One request on a connection of its own (`agent: false`): Caddy closes its admin connections
 * when it loads a config, and a pooled keep-alive socket would fail the next call with
 * "other side closed". Calls are few, so the extra handshake costs nothing that matters.
 */
function send(url: URL, o: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method: o.method, headers: { ...o.headers, ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}) }, agent: false, signal: o.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** What a failed connection was, in words: `connection refused`, not `fetch failed`. */
export function describeNetworkError(err: unknown): string {
  // The code sits on the error or somewhere down its cause chain (fetch and SDKs wrap it).
  let code: string | undefined;
  let innermost: unknown = err;
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    code ??= typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
    innermost = e;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return innermost instanceof Error ? innermost.message : String(innermost);
  }
}

/** The error message out of the usual envelopes (`{error: "..."}`, `{error: {message}}`, `{errors: [{message}]}`), shortened. */
export function errorText(body: unknown): string {
  if (typeof body === 'string') return snippet(body) || '(empty body)';
  const b = body as { error?: unknown; errors?: unknown; message?: unknown } | null;
  if (b && typeof b.error === 'string') return snippet(b.error);
  if (b && b.error && typeof (b.error as { message?: unknown }).message === 'string') return snippet((b.error as { message: string }).message);
  if (b && Array.isArray(b.errors) && b.errors.length > 0) return snippet(b.errors.map((e) => (e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e))).join('; '));
  if (b && typeof b.message === 'string') return snippet(b.message);
  return body === null ? '(empty body)' : snippet(JSON.stringify(body));
}

function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 300 ? `${one.slice(0, 300)}…` : one;
}
