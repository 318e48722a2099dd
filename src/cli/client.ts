/**
 * The HTTP client of the control plane API (DESIGN §11), over Node's `fetch`.
 *
 * Every failure becomes a CliError the CLI prints as `error (CODE): message`:
 * - the API's own errors keep their code (`{"error": {"code", "message"}}`) and carry the status;
 * - a control plane that cannot be reached is UNREACHABLE;
 * - a request that gets no answer within `timeoutMs` is TIMEOUT.
 * An abort through the caller's signal is rethrown as it is (an AbortError), never wrapped.
 */
import { linkedSignal } from '../lib/linked-abort.js';
import { CliError } from './cli-error.js';
import { SseParser, type SseMessage } from './sse.js';

export interface ApiClientOptions {
  /** Base URL of the control plane, e.g. `http://127.0.0.1:4600`. */
  readonly url: string;
  /** The bearer token; called on the first request, so commands that fail earlier need none. */
  readonly token: () => string | Promise<string>;
  /** Bound on each plain request (not on event streams). Default 30 s. */
  readonly timeoutMs?: number;
}

export type Query = Readonly<Record<string, string | number | undefined>>;

export class ApiClient {
  readonly url: string;
  private readonly tokenSource: () => string | Promise<string>;
  private token: string | null = null;
  private readonly timeoutMs: number;

  constructor(opts: ApiClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.tokenSource = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', withQuery(path, query), undefined, signal);
  }

  post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('POST', path, body, signal);
  }

  put<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('PUT', path, body, signal);
  }

  patch<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.request<T>('PATCH', path, body, signal);
  }

  delete<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('DELETE', path, undefined, signal);
  }

  /**
   * Follow a server-sent event stream, yielding each message. Returns when the server closes the
   * stream; a connection that drops mid-stream throws UNREACHABLE (callers decide whether to
   * reconnect). Stops quietly when `signal` aborts.
   */
  async *events(path: string, signal?: AbortSignal): AsyncGenerator<SseMessage> {
    const res = await this.send('GET', path, undefined, signal, { accept: 'text/event-stream' });
    if (!res.ok) throw await errorFromResponse(res, 'GET', path);
    if (!res.body) return;
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (signal?.aborted) return;
          throw new CliError('UNREACHABLE', `the event stream from ${this.url} dropped: ${causeOf(err)}`);
        }
        if (chunk.done) break;
        yield* parser.push(decoder.decode(chunk.value, { stream: true }));
      }
      yield* parser.push(decoder.decode());
      parser.end();
    } finally {
      // Closes the connection when the consumer stops early (break / throw).
      reader.cancel().catch(() => undefined);
    }
  }

  private async request<T>(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const deadline = linkedSignal(signal ? [signal] : [], this.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await this.send(method, path, body, deadline.signal);
      text = await res.text();
    } catch (err) {
      if (deadline.timedOut) {
        throw new CliError('TIMEOUT', `the control plane at ${this.url} did not answer ${method} ${path} within ${Math.round(this.timeoutMs / 1000)} s`);
      }
      throw err;
    } finally {
      deadline.dispose();
    }
    if (!res.ok) throw errorFromBody(res, text, method, path);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError('BAD_RESPONSE', `${method} ${path} answered ${res.status} with a body that is not JSON: ${snippet(text)}`, res.status);
    }
  }

  /** One fetch; network failures become UNREACHABLE, aborts pass through. */
  private async send(method: string, path: string, body: unknown, signal: AbortSignal | undefined, extra: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    const token = await this.bearer();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw unreachable(this.url, err);
    }
  }

  private async bearer(): Promise<string> {
    this.token ??= (await this.tokenSource()).trim();
    return this.token;
  }
}

/** The UNREACHABLE error for a failed connection; the exact wording for a refused one. */
export function unreachable(url: string, err: unknown): CliError {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  if (code === 'ECONNREFUSED' || code === undefined) {
    return new CliError('UNREACHABLE', `cannot reach the control plane at ${url}: is \`denv dev\` or \`denv server\` running?`);
  }
  return new CliError('UNREACHABLE', `cannot reach the control plane at ${url}: ${causeOf(err)}`);
}

/** A CliError from an error answer: the API's `{"error": {code, message}}`, or the bare status. */
export function errorFromBody(res: { status: number; statusText: string }, text: string, method: string, path: string): CliError {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const e = parsed.error;
    if (e && typeof e.code === 'string' && typeof e.message === 'string') return new CliError(e.code, e.message, res.status);
  } catch {
    // not JSON: fall through
  }
  const detail = text.trim() ? `: ${snippet(text)}` : '';
  return new CliError(`HTTP_${res.status}`, `${method} ${path} answered ${res.status} ${res.statusText}${detail}`, res.status);
}

async function errorFromResponse(res: Response, method: string, path: string): Promise<CliError> {
  const text = await res.text().catch(() => '');
  return errorFromBody(res, text, method, path);
}

/** `path?k=v&…`, leaving out undefined values. */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A path segment from user input (a name or id), escaped. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 200 ? `${one.slice(0, 199)}…` : one;
}
