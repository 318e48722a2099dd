/** A small API client for tests: JSON in and out, status kept, no throwing on 4xx. */
import type { Deployment } from '../../src/contracts/domain.js';

export interface ApiResponse<T = any> {
  readonly status: number;
  readonly body: T;
}

export class Api {
  constructor(readonly url: string, readonly token: string) {}

  async req<T = any>(method: string, path: string, body?: unknown, token = this.token): Promise<ApiResponse<T>> {
    const res = await fetch(this.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  get = <T = any>(path: string, token?: string) => this.req<T>('GET', path, undefined, token);
  post = <T = any>(path: string, body?: unknown, token?: string) => this.req<T>('POST', path, body ?? {}, token);
  put = <T = any>(path: string, body: unknown, token?: string) => this.req<T>('PUT', path, body, token);

  /** Resolve once the deployment reaches a terminal status (polls; the SSE stream has its own test). */
  async finished(id: string, timeoutMs = 60_000): Promise<Deployment> {
    let last: Deployment | null = null;
    return waitFor(async () => {
      const { body } = await this.get<Deployment>(`/v1/deployments/${id}`);
      last = body;
      return ['succeeded', 'failed', 'rolled_back'].includes(body.status) ? body : undefined;
    }, timeoutMs, `deployment ${id} to finish`).catch((err: Error) => {
      // Where it stood, for whoever meets a timeout on a loaded machine: its status and each phase's.
      const d = last as Deployment | null;
      const where = d ? `${d.status}; phases: ${d.phases.map((p) => `${p.name} ${p.status}${p.started_at ? ` since ${p.started_at}` : ''}`).join(', ')}` : 'never read';
      throw new Error(`${err.message} (last seen: ${where})`);
    });
  }
}

/** Poll `check` until it returns a value other than undefined/false, or fail after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${String(lastErr)})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
