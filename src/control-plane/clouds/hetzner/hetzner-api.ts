/**
 * A small typed client for the Hetzner Cloud API (https://docs.hetzner.cloud/), over global
 * `fetch`, for only the endpoints the hetzner provider uses:
 *
 *   POST   /servers                      make a server → {server, action, next_actions, root_password}
 *   GET    /servers/{id}                 one server → {server}
 *   GET    /servers?label_selector=…     servers, one page → {servers, meta: {pagination}}
 *   DELETE /servers/{id}                 delete a server → {action}
 *   GET    /actions/{id}                 how an action is going → {action}
 *
 * Every request carries `Authorization: Bearer <token>` and has a timeout of its own. A refusal
 * throws HetznerApiError `hetzner: <code>: <message> (HTTP <status>)` from the API's error
 * envelope `{error: {code, message, details}}`. The token is never part of a message.
 */

export type ActionStatus = 'running' | 'success' | 'error';

/** An action (Hetzner's record of an asynchronous operation), the fields denv reads. */
export interface HetznerAction {
  readonly id: number;
  readonly command: string;
  readonly status: ActionStatus;
  readonly progress: number;
  readonly started: string;
  readonly finished: string | null;
  readonly resources: readonly { readonly id: number; readonly type: string }[];
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** A server, the fields denv reads. `public_net.ipv4` is null for a server made without one. */
export interface HetznerServer {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly public_net: {
    readonly ipv4: { readonly ip: string } | null;
    readonly ipv6: { readonly ip: string } | null;
  };
}

/** The create request, as far as denv fills it in (server_type, image, location, ssh_keys: ID or name). */
export interface CreateServerRequest {
  readonly name: string;
  readonly server_type: string;
  readonly image: string;
  readonly location: string;
  readonly start_after_create: boolean;
  readonly user_data: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly public_net: { readonly enable_ipv4: boolean; readonly enable_ipv6: boolean };
  readonly ssh_keys?: readonly string[];
}

export interface CreateServerResponse {
  readonly server: HetznerServer;
  readonly action: HetznerAction;
  readonly next_actions: readonly HetznerAction[];
  readonly root_password: string | null;
}

export interface Pagination {
  readonly page: number;
  readonly per_page: number;
  readonly previous_page: number | null;
  readonly next_page: number | null;
  readonly last_page: number | null;
  readonly total_entries: number | null;
}

export interface ServersPage {
  readonly servers: readonly HetznerServer[];
  readonly meta: { readonly pagination: Pagination };
}

/** A request the API refused (`code` from its envelope) or one that got no usable answer (`status` 0). */
export class HetznerApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HetznerApiError';
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof HetznerApiError && err.status === 404;

export interface HetznerApi {
  createServer(body: CreateServerRequest): Promise<CreateServerResponse>;
  getServer(id: number): Promise<HetznerServer>;
  listServers(query: { readonly label_selector: string; readonly page: number; readonly per_page: number }): Promise<ServersPage>;
  deleteServer(id: number): Promise<HetznerAction>;
  getAction(id: number): Promise<HetznerAction>;
}

export interface HetznerApiOptions {
  readonly token: string;
  /** The API's base URL, `https://api.hetzner.cloud/v1` (a local stand-in's in tests). */
  readonly apiUrl: string;
  /** How long one request may take (default 30 s). */
  readonly timeoutMs?: number;
}

export function hetznerApi(o: HetznerApiOptions): HetznerApi {
  const base = o.apiUrl.replace(/\/+$/, '');
  const timeoutMs = o.timeoutMs ?? 30_000;
  // Only for text the API sent back: a message quoting the request must not carry the token on.
  const redact = (text: string) => (o.token ? text.split(o.token).join('<token>') : text);

  async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path.split('?')[0]}`;
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${o.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError') throw new HetznerApiError('timeout', 0, `hetzner: ${what}: no answer within ${timeoutMs} ms`);
      throw new HetznerApiError('unreachable', 0, `hetzner: ${what}: cannot reach ${new URL(base).host}: ${redact(e.cause?.code ?? e.cause?.message ?? e.message)}`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (typeof error?.code === 'string') throw new HetznerApiError(error.code, res.status, `hetzner: ${error.code}: ${redact(String(error.message ?? ''))} (HTTP ${res.status})`);
      throw new HetznerApiError('http_error', res.status, `hetzner: ${what}: ${redact(text.slice(0, 200).trim() || res.statusText)} (HTTP ${res.status})`);
    }
    if (parsed === null || typeof parsed !== 'object') throw new HetznerApiError('bad_response', res.status, `hetzner: ${what}: the answer is not JSON (HTTP ${res.status})`);
    return parsed as T;
  }

  return {
    createServer: (body) => call<CreateServerResponse>('POST', '/servers', body),
    getServer: async (id) => (await call<{ server: HetznerServer }>('GET', `/servers/${id}`)).server,
    listServers: (q) => call<ServersPage>('GET', `/servers?${new URLSearchParams({ label_selector: q.label_selector, page: String(q.page), per_page: String(q.per_page) })}`),
    deleteServer: async (id) => (await call<{ action: HetznerAction }>('DELETE', `/servers/${id}`)).action,
    getAction: async (id) => (await call<{ action: HetznerAction }>('GET', `/actions/${id}`)).action,
  };
}
