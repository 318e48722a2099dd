/**
 * `GET /v1/install/denv.tar`: this control plane's own installation (clouds/installation.ts), for
 * a machine a cloud made to install exactly this version at first boot (a hetzner machine's
 * cloud-init). No team token: the caller shows the machine's enrollment key as a bearer token —
 * one that is live (not expired, revoked or spent) — and downloading does not spend it. Anything
 * else answers 401 and sends nothing. The archive is made as it is sent (`tar` to the socket), with
 * `bin/denv` at its root.
 */
import type { FastifyInstance } from 'fastify';
import { startStreaming } from '../../lib/exec.js';
import { hashSecret } from '../auth/secrets.js';
import { installationTarArgv, PACKAGE_ROOT, shippedPaths } from '../clouds/installation.js';
import type { ApiContext } from './route.js';

const UNAUTHORIZED = { error: { code: 'UNAUTHORIZED', message: 'send a live enrollment key as Authorization: Bearer <key>' } };

export function registerInstallDownload(app: FastifyInstance, ctx: Pick<ApiContext, 'db'>): void {
  app.get('/v1/install/denv.tar', async (req, reply) => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const live = m
      ? await ctx.db.query<{ id: string }>('select id from enrollment_keys where hash = $1 and revoked_at is null and expires_at > now() and (not single_use or used_at is null)', [hashSecret(m[1]!)])
      : [];
    if (!live[0]) return reply.code(401).send(UNAUTHORIZED);
    const tar = startStreaming(installationTarArgv(PACKAGE_ROOT, shippedPaths()), { cwd: PACKAGE_ROOT });
    // A reader that goes away stops the archive; an archive tar could not finish (a file it could
    // not read) cuts the answer short, so the machine's download fails instead of unpacking it.
    reply.raw.on('close', () => tar.kill());
    void tar.exited.then((e) => e.code !== 0 && reply.raw.destroy());
    return reply.header('content-type', 'application/x-tar').header('cache-control', 'no-store').send(tar.stdout);
  });
}
