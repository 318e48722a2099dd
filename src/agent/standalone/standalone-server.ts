/**
 * Standalone mode (DESIGN §7, "Contract details"): the agent itself serves
 *
 *   POST /deploy     body: an envelope → runs seed 004's pipeline for the service it names
 *   POST /preflight  body: an envelope → runtime, admit (with the signature), ports, proxy, dns
 *   GET  /healthz    200 once listening (for CI waiting on the agent)
 *
 * on the `listen` address of the agent config — meant for loopback, where CI runs next to the
 * host. No token: the envelope's signature under the host's own trusted keys *is* the
 * authorisation, exactly as for deploys relayed by the control plane.
 *
 * Answers `{state, stages: [{name, status, detail?, took_ms, evidence?}], endpoint?}` with 200
 * for a passing state and 422 when the pipeline ran and ended in `failure` or
 * `failure_rolled_back`; 400 `{error}` only when the body is not JSON at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_ENVELOPE_BYTES, PASSING_STATES, peekEnvelopeService } from '../../contracts/envelope.js';
import { messageOf } from '../../contracts/errors.js';
import type { PipelineHost } from '../pipeline/pipeline-host.js';
import { answerOf, runPipeline } from '../pipeline/run-pipeline.js';
import { STANDALONE_SCOPE } from '../runtimes/docker/slot.js';

export interface StandaloneServer {
  /** `http://host:port` actually bound (the config may say port 0). */
  readonly url: string;
  close(): Promise<void>;
}

/** A body a little larger than the biggest envelope (base64 grows it by a third). */
const MAX_BODY_BYTES = Math.ceil((MAX_ENVELOPE_BYTES * 4) / 3) + 16 * 1024;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const errorBody = (code: string, message: string) => ({ error: { code, message } });

async function readBody(req: http.IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(host: PipelineHost, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://agent');
  if (req.method === 'GET' && url.pathname === '/healthz') return send(res, 200, { ok: true, host: host.config.name });
  const mode = url.pathname === '/deploy' ? 'deploy' : url.pathname === '/preflight' ? 'preflight' : null;
  if (!mode) return send(res, 404, errorBody('NOT_FOUND', `no route ${req.method} ${url.pathname}`));
  if (req.method !== 'POST') return send(res, 405, errorBody('BAD_REQUEST', `${url.pathname} takes POST`));
  const text = await readBody(req);
  if (text === null) return send(res, 413, errorBody('BAD_REQUEST', `body larger than ${MAX_BODY_BYTES} bytes`));
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return send(res, 400, errorBody('BAD_REQUEST', 'body: expected a JSON envelope {"payload", "signature"}'));
  }
  // The service only picks the slot (and its lock); admit checks everything, including this name.
  const service = peekEnvelopeService(envelope) ?? '_unreadable';
  const run = await runPipeline(host, { mode, slot: { scope: STANDALONE_SCOPE, service }, envelope, spec: null, datasets: {}, version: null });
  send(res, PASSING_STATES.includes(run.state) ? 200 : 422, answerOf(run));
}

export function startStandaloneServer(host: PipelineHost, listen: { readonly host: string; readonly port: number }): Promise<StandaloneServer> {
  const server = http.createServer((req, res) => {
    handle(host, req, res).catch((err: unknown) => {
      host.log(`standalone ${req.method} ${req.url}: ${messageOf(err)}`);
      if (!res.headersSent) send(res, 500, errorBody('INTERNAL', messageOf(err)));
      else res.destroy();
    });
  });
  // A deploy can take minutes (pull, health); the default request timeout must not cut it off.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        url: `http://${hostPart}:${addr.port}`,
        close: () => new Promise<void>((r) => {
          server.close(() => r());
          server.closeAllConnections();
        }),
      });
    });
  });
}
