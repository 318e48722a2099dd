import { deploymentsQuery } from '../../contracts/api.js';
import { toDeployment, type DeploymentRow } from '../store/rows.js';
import { findDeployment } from './lookup.js';
import { listPage } from './paging.js';
import { route } from './route.js';

const TERMINAL = new Set(['succeeded', 'failed', 'rolled_back']);

export const deploymentRoutes = [
  route({
    method: 'GET', url: '/v1/deployments', summary: 'List deployments, newest first', query: deploymentsQuery,
    async handler({ db }, { auth, query }) {
      const params: unknown[] = [auth.team];
      if (query.env) params.push(query.env);
      return listPage(db, { table: 'deployments', where: query.env ? 'team = $1 and env = $2' : 'team = $1', params, newestFirst: true }, query, toDeployment);
    },
  }),
  route({
    method: 'GET', url: '/v1/deployments/:id', summary: 'Read a deployment with its phases',
    async handler({ db }, { auth, params }) {
      return toDeployment(await findDeployment(db, auth.team, params.id!));
    },
  }),
  route({
    method: 'GET', url: '/v1/deployments/:id/stream', summary: 'Server-sent events: `deployment` on every change, `end` after a terminal status',
    async handler({ db, bus }, { auth, params, reply, req }) {
      const first = await findDeployment(db, auth.team, params.id!);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      let last = '';
      let closed = false;
      const send = (dep: DeploymentRow) => {
        const body = JSON.stringify(toDeployment(dep));
        if (body !== last) {
          last = body;
          res.write(`event: deployment\ndata: ${body}\n\n`);
        }
        if (TERMINAL.has(dep.status)) {
          res.write('event: end\ndata: {}\n\n');
          close();
        }
      };
      const refresh = async () => {
        if (closed) return;
        const rows = await db.query<DeploymentRow>('select * from deployments where id = $1', [first.id]);
        if (rows[0] && !closed) send(rows[0]);
      };
      const onChange = (id: string) => id === first.id && void refresh().catch(() => {});
      // Another control plane may run the deployment: poll as well as listen.
      const poll = setInterval(() => void refresh().catch(() => {}), 2000);
      const keepAlive = setInterval(() => !closed && res.write(': keep-alive\n\n'), 15000);
      function close() {
        if (closed) return;
        closed = true;
        bus.off('deployment', onChange);
        clearInterval(poll);
        clearInterval(keepAlive);
        res.end();
      }
      bus.on('deployment', onChange);
      req.raw.on('close', close);
      send(first);
      return undefined;
    },
  }),
];
