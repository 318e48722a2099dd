import type { FastifyRequest } from 'fastify';
import { DenvError } from '../../contracts/errors.js';
import { newId, newSecret } from '../../contracts/ids.js';
import { hashSecret } from '../auth/secrets.js';
import type { Db } from '../store/db.js';
import type { Auth } from './route.js';

/** Resolve `Authorization: Bearer <token>` to its team, or throw UNAUTHORIZED. */
export async function authenticate(db: Db, req: FastifyRequest): Promise<Auth> {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new DenvError('UNAUTHORIZED', 'missing bearer token (Authorization: Bearer <token>)');
  const rows = await db.query<{ id: string; team: string; admin: boolean }>('select id, team, admin from api_tokens where hash = $1 and revoked_at is null', [hashSecret(match[1]!)]);
  if (!rows[0]) throw new DenvError('UNAUTHORIZED', 'unknown or revoked token');
  return { team: rows[0].team, tokenId: rows[0].id, admin: rows[0].admin };
}

/** Create a token for `team` and return the secret (shown once; only its hash is stored). */
export async function issueToken(db: Db, team: string, name: string, admin: boolean): Promise<{ id: string; token: string }> {
  const id = newId('token');
  const token = newSecret('denv');
  await db.query('insert into api_tokens (id, team, name, hash, admin) values ($1, $2, $3, $4, $5)', [id, team, name, hashSecret(token), admin]);
  return { id, token };
}
