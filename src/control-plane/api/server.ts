/**
 * The HTTP side of the control plane: Fastify with the route table, bearer auth on `/v1`, closed
 * request validation (zod, before any handler runs, so a bad body writes nothing), the agents'
 * WebSocket at `/agent/ws`, `/openapi.json` and `/healthz`.
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DenvError } from '../../contracts/errors.js';
import { parseOrThrow } from '../../contracts/validation.js';
import { authenticate } from './auth.js';
import { deploymentRoutes } from './deployments.js';
import { envRoutes } from './envs.js';
import { envOperationRoutes } from './env-operations.js';
import { envLifecycleRoutes } from './env-lifecycle.js';
import { errorHandler } from './errors.js';
import { eventRoutes } from './events.js';
import { hostRoutes } from './hosts.js';
import { openApiDocument } from './openapi.js';
import { projectRoutes } from './projects.js';
import { sandboxRoutes } from './sandboxes.js';
import type { ApiContext, RouteDef } from './route.js';
import { teamRoutes } from './teams.js';
import { envTelemetryRoutes } from './env-telemetry.js';
import { envStreamRoutes } from './env-streams.js';
import { registerUi } from './ui.js';
import type { ControlPlaneMetrics } from '../telemetry/prometheus.js';

const NO_QUERY = z.strictObject({});

export const ROUTES: readonly RouteDef[] = [...teamRoutes, ...projectRoutes, ...envRoutes, ...envLifecycleRoutes, ...deploymentRoutes, ...eventRoutes, ...hostRoutes, ...envOperationRoutes, ...sandboxRoutes, ...envTelemetryRoutes, ...envStreamRoutes];

/** `metrics`: serve `/metrics` and time every request. The web UI is served at `/` (ui.ts). */
export async function buildServer(ctx: ApiContext, opts: { version: string; log: (line: string) => void; metrics?: ControlPlaneMetrics }): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  opts.metrics?.instrument(app);
  registerUi(app);
  app.setErrorHandler(errorHandler(opts.log));
  app.setNotFoundHandler((req, reply) => reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }));
  await app.register(websocket, { options: { maxPayload: 16 * 1024 * 1024 } });

  app.get('/agent/ws', { websocket: true }, (socket) => ctx.agents.accept(socket));
  app.get('/healthz', async () => ({ ok: true }));
  const doc = openApiDocument(ROUTES, opts.version);
  app.get('/openapi.json', async () => doc);

  for (const r of ROUTES) {
    app.route({
      method: r.method,
      url: r.url,
      handler: async (req, reply) => {
        const auth = await authenticate(ctx.db, req);
        if (r.access === 'admin' && !auth.admin) throw new DenvError('FORBIDDEN', 'this route needs the admin token');
        const body = r.body ? parseOrThrow(r.body, req.body ?? undefined) : undefined;
        if (!r.body && req.body !== undefined && req.body !== null && r.method !== 'GET' && Object.keys(req.body as object).length > 0) {
          throw new DenvError('BAD_REQUEST', 'this route takes no body');
        }
        const query = parseOrThrow(r.query ?? NO_QUERY, req.query ?? {});
        const out = await r.handler(ctx, { auth, body, query, params: req.params as Record<string, string>, req, reply });
        if (out === undefined) return reply;
        return reply.status(r.status ?? 200).send(out);
      },
    });
  }
  return app;
}
