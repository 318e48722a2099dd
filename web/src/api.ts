/**
 * The UI's client of the `/v1` API: JSON with the bearer token, errors as `ApiError` carrying the
 * API's `{error: {code, message}}`, and server-sent event streams read with `fetch` (EventSource
 * cannot send an Authorization header) through the CLI's own SSE parser.
 */
import { SseParser, type SseMessage } from '../../src/cli/sse.js';
import { clearToken, getToken } from './auth.js';

export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly status: number) {
    super(message);
  }
}

/** Called when the token is refused, so the app can show the sign-in form. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json' };
  const token = getToken();
  if (token) h.authorization = `Bearer ${token}`;
  if (json) h['content-type'] = 'application/json';
  return h;
}

async function failure(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const e = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    if (e?.code && e.message) return new ApiError(e.code, e.message, res.status);
  } catch {
    /* not JSON */
  }
  return new ApiError(`HTTP_${res.status}`, text || res.statusText, res.status);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 401) {
    clearToken();
    onUnauthorized();
  }
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/**
 * Follow an event stream until `signal` aborts, calling `onMessage` for each event. When the
 * stream ends or drops it is reopened after a pause (unless `reopen` is false), so a control-plane
 * restart only pauses the page.
 */
export async function follow(path: string, onMessage: (m: SseMessage) => void, signal: AbortSignal, opts: { reopen?: boolean; onError?: (e: unknown) => void } = {}): Promise<void> {
  let pause = 500;
  while (!signal.aborted) {
    try {
      const res = await fetch(path, { headers: { ...headers(false), accept: 'text/event-stream' }, signal });
      if (res.status === 401) {
        clearToken();
        onUnauthorized();
        return;
      }
      if (!res.ok || !res.body) throw await failure(res);
      pause = 500;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        for (const m of parser.push(decoder.decode(chunk.value, { stream: true }))) onMessage(m);
      }
    } catch (err) {
      if (signal.aborted) return;
      opts.onError?.(err);
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) return;
    }
    if (opts.reopen === false || signal.aborted) return;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 5000);
  }
}
