/**
 * Telemetry of an env (DESIGN §11): `GET /v1/envs/{env}/status | logs | metrics | uptime |
 * incidents`, and the improvement requests incidents file on a project. The live variants (SSE)
 * are in env-streams.ts.
 *
 * `status?refresh=true` and `logs` ask the env's agent first (a few seconds at most) and store
 * what it answers; when it cannot answer, they answer what is stored, saying why in `error`.
 */
import { envLogsQuery, envMetricsQuery, envStatusQuery, envUptimeQuery, improvementsQuery, incidentsQuery } from '../../contracts/api.js';
import { messageOf } from '../../contracts/errors.js';
import type { Improvement, Incident } from '../../contracts/telemetry.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { Bus } from '../bus.js';
import type { Db } from '../store/db.js';
import { iso, type EnvRow } from '../store/rows.js';
import { askAgent } from '../telemetry/agent-requests.js';
import { ecsEnvLogs } from '../targets/ecs/ecs-env-logs.js';
import { storeLogLines } from '../telemetry/intake.js';
import { metricSeries, statusView, storedLogs, uptime } from '../telemetry/reads.js';
import { findEnv, findProject } from './lookup.js';
import { listPage } from './paging.js';
import { route, type ApiContext } from './route.js';

/** Ask the agent to probe now and store the answer as the env's live status. */
export async function refreshStatus(db: Db, bus: Bus, agents: AgentGateway, env: EnvRow): Promise<EnvRow> {
  const status = await askAgent(agents, env.host, 'status.refresh', { env: env.id });
  const rows = await db.query<EnvRow>('update envs set live_status = $2 where id = $1 and host = $3 returning *', [env.id, JSON.stringify({ at: status.at, workloads: status.workloads }), env.host]);
  bus.emit('kick');
  bus.emit('telemetry', env.id);
  return rows[0] ?? env;
}

/** Ask the agent for its ring buffers (optionally following for `followMs`) and store the lines. */
export async function fetchLogs({ db, agents, aws }: Pick<ApiContext, 'db' | 'agents' | 'aws'>, env: EnvRow, lines: number, followMs = 0): Promise<void> {
  // An aws_ecs env has no agent: its lines come from CloudWatch (a snapshot; no follow).
  if (env.target === 'aws_ecs') {
    await storeLogLines(db, null, env.id, await ecsEnvLogs(db, aws, env, lines));
    return;
  }
  const answer = await askAgent(agents, env.host, 'logs.request', { env: env.id, lines, follow_ms: followMs });
  await storeLogLines(db, null, env.id, answer.lines);
}

interface IncidentRow { id: string; project: string; env: string; service: string; fingerprint: string; pattern: string; sample: string; count: unknown; status: string; improvement: string | null; first_at: unknown; last_at: unknown; created_at: unknown }
const toIncident = (r: IncidentRow): Incident => ({
  id: r.id, env: r.env, project: r.project, service: r.service, fingerprint: r.fingerprint, pattern: r.pattern, sample: r.sample,
  count: Number(r.count), status: r.status as Incident['status'], improvement: r.improvement, first_at: iso(r.first_at)!, last_at: iso(r.last_at)!,
});

interface ImprovementRow { id: string; project: string; kind: string; title: string; body: string; status: string; source: string | null; incident: string | null; created_at: unknown }
const toImprovement = (r: ImprovementRow): Improvement => ({
  id: r.id, project: r.project, kind: r.kind as Improvement['kind'], title: r.title, body: r.body, status: r.status as Improvement['status'],
  source: r.source, incident: r.incident, created_at: iso(r.created_at)!,
});

export const envTelemetryRoutes = [
  route({
    method: 'GET', url: '/v1/envs/:env/status', summary: "The env's live status: per workload ready/desired, pid, restarts, last exit reason (e.g. OOMKilled), volume usage; host; allowed actions. refresh=true asks the agent now", query: envStatusQuery,
    async handler({ db, bus, agents }, { auth, params, query }) {
      let env = await findEnv(db, auth.team, params.env!);
      let error: string | null = null;
      if (query.refresh) env = await refreshStatus(db, bus, agents, env).catch((err: unknown) => ((error = messageOf(err)), env));
      return { ...(await statusView(db, env)), error };
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/logs', summary: 'The last log lines of each workload (at most 200), fetched from the agent; what is stored when it cannot answer', query: envLogsQuery,
    async handler(ctx, { auth, params, query }) {
      const { db } = ctx;
      const env = await findEnv(db, auth.team, params.env!);
      let error: string | null = null;
      await fetchLogs(ctx, env, query.lines).catch((err: unknown) => (error = messageOf(err)));
      const items = (await storedLogs(db, env.id, { service: query.service, lines: query.lines })).map(({ id: _id, ...l }) => l);
      return { items, next: null, source: error ? 'stored' : 'agent', error };
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/metrics', summary: 'CPU (% of one core) and memory samples per service over a window (default 15m)', query: envMetricsQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      return { env: env.id, window_ms: query.window, services: await metricSeries(db, env.id, { service: query.service, windowMs: query.window }) };
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/uptime', summary: 'Per service, the share of HTTP availability probes that found it up over a window (default 1h)', query: envUptimeQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      return { env: env.id, window_ms: query.window, services: await uptime(db, env.id, query.window) };
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/incidents', summary: 'Recurring errors seen in the env, newest first, with count, sample and the improvement filed for each', query: incidentsQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      return listPage(db, { table: 'incidents', where: '(env = $1 and ($2::text is null or status = $2))', params: [env.id, query.status ?? null], newestFirst: true }, query, toIncident);
    },
  }),
  route({
    method: 'GET', url: '/v1/projects/:project/improvements', summary: "The project's improvement requests, newest first (incidents file kind bug)", query: improvementsQuery,
    async handler({ db }, { auth, params, query }) {
      const project = await findProject(db, auth.team, params.project!);
      return listPage(db, { table: 'improvements', where: '(project = $1 and ($2::text is null or kind = $2))', params: [project.id, query.kind ?? null], newestFirst: true }, query, toImprovement);
    },
  }),
];
