import { deploymentsQuery } from '../../contracts/api.js';
import { DEPLOYMENT_VIEW_COLUMNS, toDeployment, type DeploymentRow } from '../store/rows.js';
import { findDeployment } from './lookup.js';
import { listPage } from './paging.js';
import { openEventStream } from './event-stream.js';
import { route } from './route.js';
import type { DeploymentOutput } from '../bus.js';
import type { Db } from '../store/db.js';
import type { Deployment } from '../../contracts/domain.js';
import { waitingReasons } from '../operations/waiting.js';

const TERMINAL = new Set(['succeeded', 'failed', 'rolled_back']);

/** The pending ones among `deps` with what each waits for. */
async function withWaiting(db: Db, deps: readonly Deployment[]): Promise<Deployment[]> {
  const reasons = await waitingReasons(db, deps.filter((d) => d.status === 'pending').map((d) => d.id));
  return deps.map((d) => (reasons.has(d.id) ? { ...d, waiting: reasons.get(d.id)! } : d));
}

export const deploymentRoutes = [
  route({
    method: 'GET', url: '/v1/deployments', summary: 'List deployments, newest first', query: deploymentsQuery,
    async handler({ db }, { auth, query }) {
      const params: unknown[] = [auth.team];
      if (query.env) params.push(query.env);
      const page = await listPage(db, { table: 'deployments', where: query.env ? 'team = $1 and env = $2' : 'team = $1', params, newestFirst: true, columns: DEPLOYMENT_VIEW_COLUMNS }, query, toDeployment);
      return { ...page, items: await withWaiting(db, page.items) };
    },
  }),
  route({
    method: 'GET', url: '/v1/deployments/:id', summary: 'Read a deployment with its phases',
    async handler({ db }, { auth, params }) {
      return (await withWaiting(db, [toDeployment(await findDeployment(db, auth.team, params.id!))]))[0];
    },
  }),
  route({
    method: 'GET', url: '/v1/deployments/:id/stream', summary: 'Server-sent events: `deployment` on every change, `output` ({service, lines}) as a build prints, `end` after a terminal status',
    async handler({ db, bus, streams }, { auth, params, reply, req }) {
      const first = await findDeployment(db, auth.team, params.id!);
      const stream = openEventStream(req, reply, streams, auth);
      // A build's lines: those stored before the stream opened, then each as its agent sends it to
      // this replica (live lines that arrive while the stored ones are read wait, and none is sent twice).
      let sentUpTo = 0;
      let held: DeploymentOutput[] | null = [];
      const sendOutput = (o: DeploymentOutput) => {
        if (o.event <= sentUpTo || stream.closed) return;
        sentUpTo = o.event;
        stream.send('output', { service: o.service, lines: o.lines });
      };
      const onOutput = (id: string, out: DeploymentOutput) => id === first.id && (held ? held.push(out) : sendOutput(out));
      bus.on('output', onOutput);
      stream.onClose(() => bus.off('output', onOutput));
      const stored = await db.query<{ id: number; data: { service: string; lines: string[] } }>("select id, data from events where subject = $1 and type = 'deployment.output' order by id", [`dep:${first.id}`]);
      for (const e of stored) sendOutput({ event: Number(e.id), service: e.data.service, lines: e.data.lines });
      for (const o of held) sendOutput(o);
      held = null;
      let last = '';
      // Every stream of this deployment shares one poll (another control plane may run it).
      const watch = streams.watch<Deployment | undefined>(
        `dep:${first.id}`,
        {
          everyMs: 2000,
          fetcher: () => async () => {
            const row = (await db.query<DeploymentRow>(`select ${DEPLOYMENT_VIEW_COLUMNS} from deployments where id = $1`, [first.id]))[0];
            return row && (await withWaiting(db, [toDeployment(row)]))[0];
          },
          wake: (kick) => {
            const onChange = (id: string) => id === first.id && kick();
            bus.on('deployment', onChange);
            return () => bus.off('deployment', onChange);
          },
        },
        (dep) => {
          if (!dep || stream.closed) return;
          const text = JSON.stringify(dep);
          if (text !== last) {
            last = text;
            if (TERMINAL.has(dep.status)) stream.send('deployment', dep);
            else stream.sendLatest('deployment', dep);
          }
          if (TERMINAL.has(dep.status)) {
            stream.send('end', {});
            stream.close();
          }
        },
      );
      stream.onClose(() => watch.close());
      return undefined;
    },
  }),
];
