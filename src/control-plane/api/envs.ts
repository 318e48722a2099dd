import { listQuery } from '../../contracts/api.js';
import { toEnv, toVersion, type EnvRow, type VersionRow } from '../store/rows.js';
import { findEnv } from './lookup.js';
import { decodeCursor, page } from './paging.js';
import { route } from './route.js';

export const envRoutes = [
  route({
    method: 'GET', url: '/v1/envs', summary: 'List environments', query: listQuery,
    async handler({ db }, { auth, query }) {
      const after = decodeCursor(query.after);
      const rows = await db.query<EnvRow>(
        `select * from envs where team = $1 ${after ? 'and (created_at, id) > ($3::timestamptz, $4)' : ''} order by created_at, id limit $2`,
        after ? [auth.team, query.limit + 1, after[0], after[1]] : [auth.team, query.limit + 1],
      );
      return page(rows, query.limit, toEnv);
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env', summary: 'Read an environment',
    async handler({ db }, { auth, params }) {
      return toEnv(await findEnv(db, auth.team, params.env!));
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/versions', summary: "List an environment's versions", query: listQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      const after = decodeCursor(query.after);
      const rows = await db.query<VersionRow>(
        `select * from versions where env = $1 ${after ? 'and (created_at, id) > ($3::timestamptz, $4)' : ''} order by number limit $2`,
        after ? [env.id, query.limit + 1, after[0], after[1]] : [env.id, query.limit + 1],
      );
      return page(rows, query.limit, toVersion);
    },
  }),
];
