/**
 * The HTTP side of the control plane: Fastify with the route table, bearer auth on `/v1`, closed
 * request validation (zod, before any handler runs, so a bad body writes nothing), the agents'
 * WebSocket at `/agent/ws`, GitHub's webhook at `/v1/hooks/github`, `/openapi.json` and `/healthz`.
 */
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DenvError } from '../../contracts/errors.js';
import { idempotent } from './idempotency.js';
import { parseOrThrow } from '../../contracts/validation.js';
import { authenticate, scopeAllows } from './auth.js';
import { registerJsonBody } from './json-body.js';
import { deploymentRoutes } from './deployments.js';
import { edgeRoutes } from './edge.js';
import { envRoutes } from './envs.js';
import { envOperationRoutes } from './env-operations.js';
import { envLifecycleRoutes } from './env-lifecycle.js';
import { errorHandler } from './errors.js';
import { eventRoutes } from './events.js';
import { hostRoutes } from './hosts.js';
import { cloudRoutes } from './clouds.js';
import { awsAccountRoutes } from './aws-accounts.js';
import { registerGithubHook } from './github-hook.js';
import { registerInstallDownload } from './install-download.js';
import { openApiDocument } from './openapi.js';
import { projectRoutes } from './projects.js';
import { previewRoutes } from './previews.js';
import { sandboxRoutes } from './sandboxes.js';
import { SMALL_BODY_LIMIT, type ApiContext, type Auth, type RouteDef } from './route.js';
import { teamRoutes } from './teams.js';
import { envTelemetryRoutes } from './env-telemetry.js';
import { envStreamRoutes } from './env-streams.js';
import { envSnapshotRoutes } from './env-snapshots.js';
import { registerUi } from './ui.js';
import type { ControlPlaneMetrics } from '../telemetry/prometheus.js';

const NO_QUERY = z.strictObject({});

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the `/v1` routes' onRequest hook, before the body is read. */
    denvAuth?: Auth;
  }
}

export const ROUTES: readonly RouteDef[] = [...teamRoutes, ...projectRoutes, ...envRoutes, ...envLifecycleRoutes, ...deploymentRoutes, ...eventRoutes, ...hostRoutes, ...cloudRoutes, ...awsAccountRoutes, ...envOperationRoutes, ...sandboxRoutes, ...envTelemetryRoutes, ...envStreamRoutes, ...envSnapshotRoutes, ...edgeRoutes, ...previewRoutes];

/** `metrics`: serve `/metrics` and time every request. The web UI is served at `/` (ui.ts). */
export async function buildServer(ctx: ApiContext, opts: { version: string; log: (line: string) => void; metrics?: ControlPlaneMetrics }): Promise<FastifyInstance> {
  // Body limits are per route (SMALL_BODY_LIMIT unless the route takes Compose).
  const app = Fastify({ logger: false, bodyLimit: SMALL_BODY_LIMIT, requestTimeout: 120_000 });
  registerJsonBody(app);
  opts.metrics?.instrument(app);
  registerUi(app);
  app.setErrorHandler(errorHandler(opts.log));
  app.setNotFoundHandler((req, reply) => reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }));
  // Until `welcome` an agent socket's frames are small; the gateway raises the limit per socket after.
  await app.register(websocket, { options: { maxPayload: ctx.agents.admission.preHelloMaxBytes } });

  app.get('/agent/ws', {
    websocket: true,
    // Before the upgrade: over the cap of unauthenticated sockets, a plain 503 costs no handshake.
    preValidation: async (_req, reply) => {
      if (!ctx.agents.admitting()) await reply.code(503).header('retry-after', '1').send({ error: { code: 'AGENT_UNREACHABLE', message: 'too many unauthenticated agent connections; try again later' } });
    },
  }, (socket) => ctx.agents.accept(socket));
  app.get('/healthz', async () => ({ ok: true }));
  // Authenticated by its HMAC signature, not a token (github-hook.ts).
  await registerGithubHook(app, ctx);
  // Authenticated by a machine's enrollment key, not a token (install-download.ts).
  registerInstallDownload(app, ctx);
  const doc = openApiDocument(ROUTES, opts.version);
  app.get('/openapi.json', async () => doc);

  for (const r of ROUTES) {
    app.route({
      method: r.method,
      url: r.url,
      bodyLimit: r.bodyLimit ?? SMALL_BODY_LIMIT,
      // Before the body is read: a caller without a valid token costs one hash and one lookup.
      onRequest: async (req, reply) => {
        try {
          if (/%00/.test(req.url)) throw new DenvError('BAD_REQUEST', 'url: NUL characters are not allowed');
          req.denvAuth = await authenticate(ctx.db, req, ctx.tokens);
        } catch (err) {
          // Refused with a body still coming: close the connection after the answer, so the
          // server does not read (and discard) megabytes nobody is allowed to send.
          if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
            reply.header('connection', 'close');
            // Once the answer is flushed, drop the connection rather than drain the body.
            reply.raw.once('finish', () => req.raw.socket?.destroy());
          }
          throw err;
        }
      },
      handler: async (req, reply) => {
        const auth = req.denvAuth!;
        if (r.access === 'admin' && !auth.admin) throw new DenvError('FORBIDDEN', 'this route needs the admin token');
        const needs = r.scope ?? (r.method === 'GET' ? 'read' : 'deploy');
        if (!scopeAllows(auth.scope, needs)) throw new DenvError('FORBIDDEN', `this route needs a token with scope ${needs} (this one has ${auth.scope})`);
        const body = r.body ? parseOrThrow(r.body, req.body ?? undefined) : undefined;
        if (!r.body && req.body !== undefined && req.body !== null && r.method !== 'GET' && Object.keys(req.body as object).length > 0) {
          throw new DenvError('BAD_REQUEST', 'this route takes no body');
        }
        const query = parseOrThrow(r.query ?? NO_QUERY, req.query ?? {});
        const call = () => r.handler(ctx, { auth, body, query, params: req.params as Record<string, string>, req, reply });
        const key = req.headers['idempotency-key'];
        if (r.method === 'POST' && typeof key === 'string') {
          // A retry with the same key answers the first answer (idempotency.ts).
          const out = await idempotent(ctx.db, auth.team, key, { method: r.method, url: req.url, body: req.body }, async () => ({ status: r.status ?? 200, answer: await call() }));
          if (out.replayed) reply.header('idempotent-replayed', 'true');
          return reply.status(out.status).send(out.answer);
        }
        const out = await call();
        if (out === undefined) return reply;
        return reply.status(r.status ?? 200).send(out);
      },
    });
  }
  return app;
}
