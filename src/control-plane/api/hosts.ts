import { createEnrollmentKeyBody, listQuery } from '../../contracts/api.js';
import { newId, newSecret } from '../../contracts/ids.js';
import { hashSecret } from '../auth/secrets.js';
import { toHost, type HostRow } from '../store/rows.js';
import { decodeCursor, page } from './paging.js';
import { route } from './route.js';
import type { Db } from '../store/db.js';

/** Create an enrollment key for `team`; the secret is returned once. */
export async function createEnrollmentKey(db: Db, team: string, expiresInS: number, singleUse: boolean): Promise<{ id: string; key: string; expires_at: string; single_use: boolean }> {
  const id = newId('enrollmentKey');
  const key = newSecret('denr');
  const rows = await db.query<{ expires_at: unknown }>(
    "insert into enrollment_keys (id, team, hash, expires_at, single_use) values ($1, $2, $3, now() + ($4 || ' seconds')::interval, $5) returning expires_at",
    [id, team, hashSecret(key), String(expiresInS), singleUse],
  );
  return { id, key, expires_at: new Date(rows[0]!.expires_at as string).toISOString(), single_use: singleUse };
}

export const hostRoutes = [
  route({
    method: 'GET', url: '/v1/hosts', summary: 'List hosts', query: listQuery,
    async handler({ db }, { auth, query }) {
      const after = decodeCursor(query.after);
      const rows = await db.query<HostRow>(
        `select * from hosts where team = $1 ${after ? 'and (created_at, id) > ($3::timestamptz, $4)' : ''} order by created_at, id limit $2`,
        after ? [auth.team, query.limit + 1, after[0], after[1]] : [auth.team, query.limit + 1],
      );
      return page(rows, query.limit, toHost);
    },
  }),
  route({
    method: 'POST', url: '/v1/enrollment-keys', summary: 'Create an enrollment key for `denv agent --enrollment-key`', body: createEnrollmentKeyBody, status: 201,
    async handler({ db }, { auth, body }) {
      return createEnrollmentKey(db, auth.team, body.expires_in, body.single_use);
    },
  }),
];
