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
 * Every stream of one env shares one poller (StreamHub.watch): one query per second for the env
 * whatever the number of streams, woken early by the bus (with several replicas the agent's
 * frames may arrive at another one, hence the poll). Each stream counts against its token's cap.
 */
import { envLogsQuery } from '../../contracts/api.js';
import { messageOf } from '../../contracts/errors.js';
import type { EnvRow } from '../store/rows.js';
import { lastLogId, logsAfter, statusView, storedLogs, type StoredLine } from '../telemetry/reads.js';
import { fetchLogs } from './env-telemetry.js';
import { openEventStream } from './event-stream.js';
import { findEnv } from './lookup.js';
import { route } from './route.js';

const POLL_MS = 1000;
const FOLLOW_MS = 60_000;
const RENEW_MS = 30_000;

type StatusTick = { readonly deleted: true } | { readonly deleted: false; readonly body: string; readonly view: Awaited<ReturnType<typeof statusView>> };

export const envStreamRoutes = [
  route({
    method: 'GET', url: '/v1/envs/:env/status/stream', summary: 'Server-sent events: `status` (as GET /status) now and on every change',
    async handler({ db, bus, streams }, { auth, params, req, reply }) {
      const first = await findEnv(db, auth.team, params.env!);
      const stream = openEventStream(req, reply, streams, auth);
      let last = '';
      const watch = streams.watch<StatusTick>(
        `status:${first.id}`,
        {
          everyMs: POLL_MS,
          fetcher: () => async () => {
            const env = (await db.query<EnvRow>('select * from envs where id = $1', [first.id]))[0];
            if (!env) return { deleted: true };
            const { live_status_age_ms: _age, ...view } = await statusView(db, env);
            return { deleted: false, body: JSON.stringify(view), view: { ...view, live_status_age_ms: null } };
          },
          wake: (kick) => {
            const onEnv = (id: string) => id === first.id && kick();
            bus.on('telemetry', onEnv);
            bus.on('deployment', kick);
            bus.on('host', kick);
            return () => {
              bus.off('telemetry', onEnv);
              bus.off('deployment', kick);
              bus.off('host', kick);
            };
          },
        },
        (tick) => {
          if (stream.closed) return;
          if (tick.deleted) {
            stream.send('end', { reason: 'the env record was deleted' });
            return stream.close();
          }
          if (tick.body === last) return;
          last = tick.body;
          const { view } = tick;
          stream.sendLatest('status', { ...view, live_status_age_ms: view.live_status ? Math.max(0, Date.now() - Date.parse(view.live_status.at)) : null });
        },
      );
      stream.onClose(() => watch.close());
      return undefined;
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/logs/stream', summary: 'Server-sent events: `line` for the last lines of each workload, then every new line (the agent pushes while the stream is open)', query: envLogsQuery,
    async handler(ctx, { auth, params, query, req, reply }) {
      const { db, bus, streams } = ctx;
      const env = await findEnv(db, auth.team, params.env!);
      const stream = openEventStream(req, reply, streams, auth);
      const follow = async () => {
        await fetchLogs(ctx, env, query.lines, FOLLOW_MS).catch((err: unknown) => stream.send('notice', { message: `live lines unavailable: ${messageOf(err)}` }));
      };
      await follow();
      let lastId = await lastLogId(db, env.id);
      for (const { id: _id, ...line } of await storedLogs(db, env.id, { service: query.service, lines: query.lines })) stream.send('line', line);
      const startId = lastId;
      const watch = streams.watch<readonly StoredLine[]>(
        `logs:${env.id}`,
        {
          everyMs: POLL_MS,
          // One cursor for the env's poller; each stream skips what it has already sent.
          fetcher: () => {
            let cursor = startId;
            return async () => {
              const lines = await logsAfter(db, env.id, cursor);
              for (const l of lines) cursor = Math.max(cursor, l.id);
              return lines;
            };
          },
          wake: (kick) => {
            const onEnv = (id: string) => id === env.id && kick();
            bus.on('telemetry', onEnv);
            return () => bus.off('telemetry', onEnv);
          },
        },
        (lines) => {
          for (const { id, ...line } of lines) {
            if (stream.closed) return;
            if (id <= lastId || (query.service !== undefined && line.service !== query.service)) continue;
            lastId = id;
            stream.send('line', line);
          }
        },
      );
      const renew = setInterval(() => void follow(), RENEW_MS);
      stream.onClose(() => {
        watch.close();
        clearInterval(renew);
        // The agent stops pushing by itself FOLLOW_MS after the last renewal; stopping it now
        // would also stop it for anyone else watching the env.
      });
      return undefined;
    },
  }),
];
