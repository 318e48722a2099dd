import { listQuery } from '../../contracts/api.js';
import { toEnv, toVersion } from '../store/rows.js';
import { findEnv } from './lookup.js';
import { listPage } from './paging.js';
import { route } from './route.js';

export const envRoutes = [
  route({
    method: 'GET', url: '/v1/envs', summary: 'List environments', query: listQuery,
    async handler({ db }, { auth, query }) {
      return listPage(db, { table: 'envs', where: 'team = $1', params: [auth.team] }, query, toEnv);
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
      return listPage(db, { table: 'versions', where: 'env = $1', params: [env.id] }, query, toVersion);
    },
  }),
];
