/**
 * The web UI (DESIGN §11 "Contract details"): the bundle `npm run build` makes with Vite from
 * `web/` into `dist/web`, served at `/`. `/assets/*` are the bundle's hashed files (cached for a
 * year); `/`, `/envs/*`, `/deployments/*`, `/hosts` and `/projects/*` answer `index.html`, and the
 * app routes in the browser. The UI signs in with an API token (typed in, or `#token=` in any UI
 * address) and calls the same `/v1` API as everyone.
 *
 * Without a built bundle these addresses answer 503 naming the command that builds it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** `src/control-plane/api` under tsx, `dist/control-plane/api` once built: the package root is three up. */
export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'web');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/** Same-origin everything; inline style attributes are used by the charts. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const SPA_ROUTES = ['/', '/envs/*', '/deployments/*', '/hosts', '/projects/*'];

export function registerUi(app: FastifyInstance, dir = WEB_DIST): void {
  const sendIndex = async (reply: FastifyReply) => {
    const html = await readFile(path.join(dir, 'index.html')).catch(() => null);
    if (!html) return reply.status(503).type('text/plain; charset=utf-8').send('The web UI is not built: run `npm run build` (npm ci runs it), then reload.\n');
    return reply.header('content-security-policy', CSP).header('cache-control', 'no-cache').type(TYPES['.html']!).send(html);
  };
  for (const url of SPA_ROUTES) app.get(url, async (_req, reply) => sendIndex(reply));

  app.get('/assets/*', async (req, reply) => {
    const rel = (req.params as { '*': string })['*'];
    const file = path.resolve(dir, 'assets', rel);
    // Only files inside the bundle's assets directory: no `..`, no absolute paths.
    if (!file.startsWith(path.join(dir, 'assets') + path.sep)) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: 'no such asset' } });
    const body = await readFile(file).catch(() => null);
    if (!body) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: 'no such asset' } });
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type(TYPES[path.extname(file)] ?? 'application/octet-stream')
      .send(body);
  });
}
