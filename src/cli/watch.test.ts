/**
 * followDeployment against a real local HTTP server speaking the stream contract (DESIGN §11):
 * normal end, a dropped stream with re-read and reconnect, refusals, and an absent control plane.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../contracts/domain.js';
import { ApiClient } from './client.js';
import { followDeployment, watchDeployment } from './watch.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | null = null;

async function serve(handler: Handler): Promise<ApiClient> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new ApiClient({ url: `http://127.0.0.1:${port}`, token: () => 'tok_test' });
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

function dep(status: Deployment['status'], phaseStatus: 'running' | 'ok' = 'running'): Deployment {
  return {
    id: 'dep_1',
    kind: 'deploy',
    env: 'env_1',
    status,
    error: null,
    created_at: '2025-01-01T00:00:00.000Z',
    finished_at: status === 'succeeded' ? '2025-01-01T00:00:01.000Z' : null,
    phases: [{ name: 'resolve', status: phaseStatus, evidence: { number: 1 }, started_at: '2025-01-01T00:00:00.000Z', finished_at: phaseStatus === 'ok' ? '2025-01-01T00:00:00.010Z' : null }],
  };
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

function send(res: ServerResponse, d: Deployment): void {
  res.write(`event: deployment\ndata: ${JSON.stringify(d)}\n\n`);
}

describe('followDeployment', () => {
  it('follows the stream to its end and sends the bearer token', async () => {
    const auth: string[] = [];
    const client = await serve((req, res) => {
      auth.push(req.headers.authorization ?? '');
      expect(req.url).toBe('/v1/deployments/dep_1/stream');
      sse(res);
      send(res, dep('running'));
      setTimeout(() => {
        send(res, dep('succeeded', 'ok'));
        res.end('event: end\ndata: {}\n\n');
      }, 20);
    });
    const seen: string[] = [];
    const final = await followDeployment(client, 'dep_1', { onUpdate: (d) => seen.push(d.status) });
    expect(final.status).toBe('succeeded');
    expect(seen).toEqual(['running', 'succeeded']);
    expect(auth).toEqual(['Bearer tok_test']);
  });

  it('re-reads and reconnects when the stream drops', async () => {
    const hits: string[] = [];
    let streams = 0;
    const client = await serve((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/v1/deployments/dep_1') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(dep('running')));
        return;
      }
      streams++;
      sse(res);
      if (streams === 1) {
        send(res, dep('running'));
        setTimeout(() => res.destroy(), 20); // drop mid-stream
      } else {
        send(res, dep('succeeded', 'ok'));
        res.end('event: end\ndata: {}\n\n');
      }
    });
    const final = await followDeployment(client, 'dep_1', { backoffMs: { first: 10, max: 10 } });
    expect(final.status).toBe('succeeded');
    expect(hits).toEqual(['/v1/deployments/dep_1/stream', '/v1/deployments/dep_1', '/v1/deployments/dep_1/stream']);
  });

  it('stops when the re-read finds the deployment already terminal', async () => {
    const client = await serve((req, res) => {
      if (req.url?.endsWith('/stream')) {
        sse(res);
        res.end(); // closed without an end event
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...dep('failed'), error: 'prepare: unhealthy' }));
    });
    const final = await followDeployment(client, 'dep_1', { backoffMs: { first: 10, max: 10 } });
    expect(final).toMatchObject({ status: 'failed', error: 'prepare: unhealthy' });
  });

  it('fails at once with the API error for a refusal', async () => {
    const client = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no deployment dep_1' } }));
    });
    await expect(followDeployment(client, 'dep_1')).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no deployment dep_1', status: 404 });
  });

  it('gives up with UNREACHABLE when nothing listens', async () => {
    const client = await serve(() => undefined);
    const url = client.url;
    server!.close();
    await expect(followDeployment(new ApiClient({ url, token: () => 't' }), 'dep_1', { giveUpAfterMs: 50, backoffMs: { first: 10, max: 20 } })).rejects.toMatchObject({
      code: 'UNREACHABLE',
      message: `cannot reach the control plane at ${url}: is \`denv dev\` or \`denv server\` running?`,
    });
  });

  it('stops on abort', async () => {
    const client = await serve((_req, res) => {
      sse(res);
      send(res, dep('running'));
    });
    const controller = new AbortController();
    const watching = followDeployment(client, 'dep_1', { signal: controller.signal, onUpdate: () => controller.abort() });
    await expect(watching).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('watchDeployment', () => {
  it('prints phases and the outcome, or only the final JSON', async () => {
    const client = await serve((_req, res) => {
      sse(res);
      send(res, dep('running'));
      send(res, dep('succeeded', 'ok'));
      res.end('event: end\ndata: {}\n\n');
    });
    const lines: string[] = [];
    await watchDeployment(client, 'dep_1', { write: (l) => lines.push(l), runningAfterMs: 0 });
    expect(lines).toEqual(['deploy dep_1 on env_1', '  … resolve', '  ✓ resolve    10 ms  number=1', 'succeeded in 1.0 s']);
    const json: string[] = [];
    await watchDeployment(client, 'dep_1', { json: true, write: (l) => json.push(l) });
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0]!)).toMatchObject({ id: 'dep_1', status: 'succeeded' });
  });
});
