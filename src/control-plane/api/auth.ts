import type { FastifyRequest } from 'fastify';
import { DenvError } from '../../contracts/errors.js';
import { newId, newSecret } from '../../contracts/ids.js';
import { hashSecret } from '../auth/secrets.js';
import type { Db } from '../store/db.js';
import { SCOPES, type Auth, type Scope } from './route.js';
import type { TokenCache } from './token-cache.js';

/**
 * Resolve `Authorization: Bearer <token>` to its team and scope, or throw UNAUTHORIZED. Runs in
 * the `onRequest` hook, before any body is read. A revoked or expired token is refused on its next
 * request: the database is read every time, except that on the embedded store a lookup is
 * remembered for a moment (`tokens`, token-cache.ts: revoking drops it at once).
 */
export async function authenticate(db: Db, req: FastifyRequest, tokens?: TokenCache): Promise<Auth> {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S{1,512})$/i.exec(header);
  if (!match) throw new DenvError('UNAUTHORIZED', 'missing bearer token (Authorization: Bearer <token>)');
  const hash = hashSecret(match[1]!);
  const known = tokens?.get(hash);
  if (known) return known;
  const rows = await db.query<{ id: string; team: string; admin: boolean; scope: Scope; expires_at: unknown }>(
    'select id, team, admin, scope, expires_at from api_tokens where hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())',
    [hash],
  );
  if (!rows[0]) throw new DenvError('UNAUTHORIZED', 'unknown or revoked token');
  const auth: Auth = { team: rows[0].team, tokenId: rows[0].id, admin: rows[0].admin, scope: rows[0].scope };
  tokens?.put(hash, auth, rows[0].expires_at ? new Date(rows[0].expires_at as string).getTime() : null);
  return auth;
}

/** Whether a token of scope `has` may do what needs `needs` (read < deploy < admin). */
export function scopeAllows(has: Scope, needs: Scope): boolean {
  return SCOPES.indexOf(has) >= SCOPES.indexOf(needs);
}

/**
 * Create a token for `team` and return the secret (shown once; only its hash is stored).
 * `admin` marks the instance's admin token (creates teams); `scope` bounds what the token may do
 * within its team; `expiresInS` (absent: never) makes it stop working after that many seconds.
 */
export async function issueToken(
  db: Db,
  team: string,
  name: string,
  admin: boolean,
  o: { readonly scope?: Scope; readonly expiresInS?: number } = {},
): Promise<{ id: string; token: string; scope: Scope; expires_at: string | null; created_at: string }> {
  const id = newId('token');
  const token = newSecret('denv');
  const scope = o.scope ?? 'admin';
  const rows = await db.query<{ expires_at: unknown; created_at: unknown }>(
    `insert into api_tokens (id, team, name, hash, admin, scope, expires_at)
     values ($1, $2, $3, $4, $5, $6, case when $7::text is null then null else now() + ($7::text || ' seconds')::interval end)
     returning expires_at, created_at`,
    [id, team, name, hashSecret(token), admin, scope, o.expiresInS === undefined ? null : String(o.expiresInS)],
  );
  const r = rows[0]!;
  return { id, token, scope, expires_at: r.expires_at ? new Date(r.expires_at as string).toISOString() : null, created_at: new Date(r.created_at as string).toISOString() };
}
