/** Enrollment keys: the one-time secrets a new agent trades for a host credential (stored hashed). */
import { newId, newSecret } from '../../contracts/ids.js';
import type { Db } from '../store/db.js';
import { hashSecret } from './secrets.js';

/** Create an enrollment key for `team`; the secret is returned once. A key for `machine` (one a
 *  cloud made) enrolls that machine's agent as its `provider` host. */
export async function createEnrollmentKey(db: Db, team: string, expiresInS: number, singleUse: boolean, name: string | null = null, machine: string | null = null): Promise<{ id: string; key: string; name: string | null; expires_at: string; single_use: boolean }> {
  const id = newId('enrollmentKey');
  const key = newSecret('denr');
  const rows = await db.query<{ expires_at: unknown }>(
    "insert into enrollment_keys (id, team, hash, expires_at, single_use, name, machine) values ($1, $2, $3, now() + ($4 || ' seconds')::interval, $5, $6, $7) returning expires_at",
    [id, team, hashSecret(key), String(expiresInS), singleUse, name, machine],
  );
  return { id, key, name, expires_at: new Date(rows[0]!.expires_at as string).toISOString(), single_use: singleUse };
}
