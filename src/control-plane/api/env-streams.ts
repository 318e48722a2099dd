/**
 * The live variants of env telemetry (DESIGN §11), as server-sent events:
 *
 * - `GET /v1/envs/{env}/status/stream`: `status` (the GET /status answer) at once and on every
 *   change of the env, its host or its live status.
 * - `GET /v1/envs/{env}/logs/stream`: `line` for each of the last lines (per workload, `lines`),
 *   then each new line as the service prints it. While the stream is open the agent is asked to
 *   push new lines (`logs.request` with `follow_ms`, renewed every 30 s); `notice` says when the
 *   agent cannot be reached (what is stored is still sent).
 *
 * Both listen on the bus and poll every second as well: with several replicas the agent's frames
 * may arrive at another one.
 */
import { envLogsQuery } from '../../contracts/api.js';
import { messageOf } from '../../contracts/errors.js';
import type { EnvRow } from '../store/rows.js';
import { lastLogId, logsAfter, statusView, storedLogs } from '../telemetry/reads.js';
import { fetchLogs } from './env-telemetry.js';
import { openEventStream } from './event-stream.js';
import { findEnv } from './lookup.js';
import { route } from './route.js';

const POLL_MS = 1000;
const FOLLOW_MS = 60_000;
const RENEW_MS = 30_000;

export const envStreamRoutes = [
  route({
    method: 'GET', url: '/v1/envs/:env/status/stream', summary: 'Server-sent events: `status` (as GET /status) now and on every change',
    async handler({ db, bus }, { auth, params, req, reply }) {
      const first = await findEnv(db, auth.team, params.env!);
      const stream = openEventStream(req, reply);
      let last = '';
      let busy = false;
      const refresh = async () => {
        if (stream.closed || busy) return;
        busy = true;
        try {
          const env = (await db.query<EnvRow>('select * from envs where id = $1', [first.id]))[0];
          if (!env) {
            stream.send('end', { reason: 'the env record was deleted' });
            return stream.close();
          }
          const { live_status_age_ms: _age, ...view } = await statusView(db, env);
          const body = JSON.stringify(view);
          if (body !== last) {
            last = body;
            stream.send('status', { ...view, live_status_age_ms: view.live_status ? Math.max(0, Date.now() - Date.parse(view.live_status.at)) : null });
          }
        } finally {
          busy = false;
        }
      };
      const tick = () => void refresh().catch(() => {});
      const onEnv = (id: string) => id === first.id && tick();
      const poll = setInterval(tick, POLL_MS);
      bus.on('telemetry', onEnv);
      bus.on('deployment', tick);
      bus.on('host', tick);
      stream.onClose(() => {
        clearInterval(poll);
        bus.off('telemetry', onEnv);
        bus.off('deployment', tick);
        bus.off('host', tick);
      });
      await refresh();
      return undefined;
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/logs/stream', summary: 'Server-sent events: `line` for the last lines of each workload, then every new line (the agent pushes while the stream is open)', query: envLogsQuery,
    async handler({ db, bus, agents }, { auth, params, query, req, reply }) {
      const env = await findEnv(db, auth.team, params.env!);
      const stream = openEventStream(req, reply);
      const follow = async () => {
        await fetchLogs(db, agents, env, query.lines, FOLLOW_MS).catch((err: unknown) => stream.send('notice', { message: `live lines unavailable: ${messageOf(err)}` }));
      };
      await follow();
      let lastId = await lastLogId(db, env.id);
      for (const { id: _id, ...line } of await storedLogs(db, env.id, { service: query.service, lines: query.lines })) stream.send('line', line);
      let busy = false;
      const more = async () => {
        if (stream.closed || busy) return;
        busy = true;
        try {
          for (const { id, ...line } of await logsAfter(db, env.id, lastId, query.service)) {
            lastId = Math.max(lastId, id);
            stream.send('line', line);
          }
        } finally {
          busy = false;
        }
      };
      const tick = () => void more().catch(() => {});
      const onEnv = (id: string) => id === env.id && tick();
      const poll = setInterval(tick, POLL_MS);
      const renew = setInterval(() => void follow(), RENEW_MS);
      bus.on('telemetry', onEnv);
      stream.onClose(() => {
        clearInterval(poll);
        clearInterval(renew);
        bus.off('telemetry', onEnv);
        // The agent stops pushing by itself FOLLOW_MS after the last renewal; stopping it now
        // would also stop it for anyone else watching the env.
      });
      return undefined;
    },
  }),
];
