/**
 * SigV4 verification for the local AWS API server: the canonical request is rebuilt from the
 * method, path, query, signed headers and the body's SHA-256, and its signature recomputed with the
 * secret of the access key the request names. Keys are looked up in the server's table: its own
 * long-term keys (optionally with a session token) and the temporary ones STS issued.
 */
import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A key the server knows, and the account its requests act in. */
export interface Principal {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Required on the request (`X-Amz-Security-Token`, signed) when set, refused when not. */
  readonly sessionToken?: string;
  readonly accountId: string;
  /** Epoch ms; temporary credentials only. */
  readonly expiresAt?: number;
  /** The assumed role's ARN and the session's name; temporary credentials only. */
  readonly roleArn?: string;
  readonly sessionName?: string;
}

export type AuthFailure = 'missing' | 'key' | 'expired' | 'signature';
export type AuthResult = { ok: true; principal: Principal } | { ok: false; kind: AuthFailure; message: string };

export interface VerifyOptions {
  /** The service the credential scope must name (`ecs`, `sts`, …). */
  readonly service: string;
  /** When set, the credential scope's region must be it (Organizations: us-east-1). */
  readonly region?: string;
  readonly lookup: (accessKeyId: string) => Principal | undefined;
  readonly now: number;
}

export function verifySigV4(req: http.IncomingMessage, body: Buffer, o: VerifyOptions): AuthResult {
  const auth = req.headers.authorization;
  if (!auth) return { ok: false, kind: 'missing', message: 'Missing Authentication Token' };
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { ok: false, kind: 'signature', message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters` };
  const [, keyId, date, region, scopeService, signedHeaders, signature] = m as unknown as string[];
  const principal = o.lookup(keyId!);
  if (!principal) return { ok: false, kind: 'key', message: 'The security token included in the request is invalid.' };
  if (scopeService !== o.service) return { ok: false, kind: 'signature', message: `Credential should be scoped to correct service: '${o.service}'.` };
  if (o.region !== undefined && region !== o.region) return { ok: false, kind: 'signature', message: `Credential should be scoped to a valid region. (the service signs in '${o.region}', not '${region}')` };
  const token = req.headers['x-amz-security-token'];
  if ((principal.sessionToken ?? undefined) !== token) return { ok: false, kind: 'key', message: 'The security token included in the request is invalid.' };
  if (principal.expiresAt !== undefined && principal.expiresAt <= o.now) return { ok: false, kind: 'expired', message: 'The security token included in the request is expired' };
  const signed = signedHeaders!.split(';');
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date!) || !signed.includes('host') || !signed.includes('x-amz-date') || (token !== undefined && !signed.includes('x-amz-security-token'))) {
    return { ok: false, kind: 'signature', message: 'The request signature does not sign host, x-amz-date (and the session token)' };
  }
  const url = new URL(req.url ?? '/', 'http://x');
  const query = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const headerValue = (name: string) => {
    const v = req.headers[name];
    return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
  };
  const payloadHash = typeof req.headers['x-amz-content-sha256'] === 'string' ? req.headers['x-amz-content-sha256'] : sha256(body);
  if (payloadHash !== sha256(body)) return { ok: false, kind: 'signature', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  const canonical = [req.method, url.pathname, query, signed.map((h) => `${h}:${headerValue(h)}\n`).join(''), signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${scopeService}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${principal.secretAccessKey}`, date!), region!), scopeService!), 'aws4_request');
  if (createHmac('sha256', key).update(stringToSign).digest('hex') !== signature) {
    return { ok: false, kind: 'signature', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.' };
  }
  return { ok: true, principal };
}
