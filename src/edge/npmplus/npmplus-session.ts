/**
 * A logged-in session with the NPMplus / Nginx Proxy Manager API (`POST /api/tokens` with the
 * account's email and password). The two products hand the token back differently, and both
 * are taken:
 *   - Nginx Proxy Manager and older NPMplus: `{token, expires}` in the body → `Authorization: Bearer`;
 *   - NPMplus today: `{expires}` in the body and the JWT only in the signed cookie
 *     `__Host-Http-token` → sent back verbatim as `Cookie`.
 * The session logs in on first use, again shortly before `expires`, and once more when a call
 * answers 401 (token revoked, server restarted with a new cookie secret). Accounts with a
 * second factor cannot log in unattended and are refused with that reason. The password and
 * the token are redacted from every message.
 */
import { EdgeError, isEdgeError } from '../edge-error.js';
import { hostOf, requestJson, type HttpEndpoint, type JsonRequest, type JsonResponse } from '../http-json.js';

const COOKIE = '__Host-Http-token';

export interface NpmplusCredentials {
  /** Base URL, e.g. `https://npm.example.com:81`. */
  readonly url: string;
  readonly email: string;
  readonly password: string;
  readonly timeoutMs: number;
}

interface Auth {
  readonly headers: Readonly<Record<string, string>>;
  readonly secret: string;
  /** ms since epoch; re-login a minute before. */
  readonly expiresAt: number;
}

export class NpmplusSession {
  readonly label: string;
  private auth: Auth | null = null;

  constructor(private readonly creds: NpmplusCredentials) {
    this.label = `npmplus API at ${hostOf(creds.url)}`;
  }

  /** An endpoint without credentials (for `GET /api`, which needs none). */
  anonymous(): HttpEndpoint {
    return { baseUrl: this.creds.url, label: this.label, timeoutMs: this.creds.timeoutMs, secrets: [this.creds.password] };
  }

  /** `req` with the session's credentials; logs in first when needed, and once more on a 401. */
  async call(req: JsonRequest): Promise<JsonResponse> {
    const auth = await this.current(req.signal);
    try {
      return await requestJson(this.endpoint(auth), req);
    } catch (err) {
      if (!isEdgeError(err) || err.status !== 401) throw err;
      this.auth = null;
      return requestJson(this.endpoint(await this.current(req.signal)), req);
    }
  }

  private endpoint(auth: Auth): HttpEndpoint {
    return { ...this.anonymous(), headers: auth.headers, secrets: [this.creds.password, auth.secret] };
  }

  private async current(signal: AbortSignal | undefined): Promise<Auth> {
    if (this.auth && this.auth.expiresAt - 60_000 > Date.now()) return this.auth;
    this.auth = await this.login(signal);
    return this.auth;
  }

  private async login(signal: AbortSignal | undefined): Promise<Auth> {
    const res = await requestJson(this.anonymous(), { method: 'POST', path: '/api/tokens', body: { identity: this.creds.email, secret: this.creds.password }, signal }).catch((err: unknown) => {
      if (isEdgeError(err) && (err.status === 400 || err.status === 401 || err.status === 403)) {
        throw new EdgeError('unauthorized', `${err.message} (login as ${this.creds.email} refused: check the email and password)`, { status: err.status });
      }
      throw err;
    });
    const body = (res.body ?? {}) as { token?: unknown; expires?: unknown; requires2fa?: unknown; requiresTotp?: unknown };
    if (body.requires2fa === true || body.requiresTotp === true) {
      throw new EdgeError('unsupported', `${this.label}: the account ${this.creds.email} needs a second factor; give denv an account without 2FA`);
    }
    const expires = typeof body.expires === 'string' ? Date.parse(body.expires) : NaN;
    const expiresAt = Number.isFinite(expires) ? expires : Date.now() + 10 * 60_000;
    if (typeof body.token === 'string' && body.token.length > 0) {
      return { headers: { authorization: `Bearer ${body.token}` }, secret: body.token, expiresAt };
    }
    const setCookie = res.headers['set-cookie'] ?? [];
    const cookie = setCookie.map((c) => c.split(';')[0]!.trim()).find((c) => c.startsWith(`${COOKIE}=`));
    if (cookie) return { headers: { cookie }, secret: cookie.slice(COOKIE.length + 1), expiresAt };
    throw new EdgeError('protocol', `${this.label}: POST /api/tokens answered ${res.status} with neither a token nor a ${COOKIE} cookie`);
  }
}
