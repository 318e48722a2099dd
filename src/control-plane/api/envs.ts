import { envsQuery, revealListQuery } from '../../contracts/api.js';
import type { Version } from '../../contracts/domain.js';
import { ENV_VIEW_COLUMNS, toEnv, toVersion, type VersionRow } from '../store/rows.js';
import { findEnv } from './lookup.js';
import { maskDeep, revealAllowed } from './mask.js';
import { listPage } from './paging.js';
import { route } from './route.js';

export const envRoutes = [
  route({
    method: 'GET', url: '/v1/envs', summary: 'List environments (optionally of one project, by id or name, and by env name)', query: envsQuery,
    async handler({ db }, { auth, query }) {
      const params: unknown[] = [auth.team];
      let where = 'team = $1';
      if (query.project !== undefined) {
        params.push(query.project);
        where += ` and project in (select id from projects where team = $1 and (id = $${params.length} or name = $${params.length}))`;
      }
      if (query.name !== undefined) {
        params.push(query.name);
        where += ` and name = $${params.length}`;
      }
      return listPage(db, { table: 'envs', where, params, columns: ENV_VIEW_COLUMNS }, query, toEnv);
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env', summary: 'Read an environment',
    async handler({ db }, { auth, params }) {
      return toEnv(await findEnv(db, auth.team, params.env!));
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/versions', summary: "List an environment's versions (environment values and file contents shown as *** unless reveal=true with an admin-scoped token)", query: revealListQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      const reveal = revealAllowed(auth, query.reveal);
      return listPage(db, { table: 'versions', where: 'env = $1', params: [env.id] }, query, (r: VersionRow) => (reveal ? toVersion(r) : (maskDeep(toVersion(r)) as Version)));
    },
  }),
];
