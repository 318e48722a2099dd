/**
 * Issue 10, item 9: event streams are bounded. Per token at most `perToken` streams are open (the
 * next is a 429 that says so, and closing one frees its slot); a client that does not read is
 * dropped once its queue passes the limit instead of being queued to without bound.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { openEventStream } from '../../src/control-plane/api/event-stream.js';
import { StreamHub } from '../../src/control-plane/api/stream-hub.js';
import { Api, waitFor } from '../helpers/api.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const PER_TOKEN = 3;

describe('event streams', () => {
  let cp: ControlPlane;
  let api: Api;
  let env: string;
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(freshDataDir(), 'cp'))), log: () => {}, streamLimits: { perToken: PER_TOKEN } });
    api = new Api(cp.url, cp.adminToken);
    // approval required: the env waits for approval and nothing needs a host
    expect((await api.post('/v1/projects', { name: 'streamed', approval: 'required' })).status).toBe(201);
    const dep = await api.post('/v1/projects/streamed/deploy', { compose: { services: { web: { command: ['true'] } } } });
    env = dep.body.env.id;
  });
  afterAll(async () => {
    await cp?.close();
  });

  /** Open a status stream and wait for its first event; returns its abort. */
  async function openStream(token: string): Promise<{ status: number; text: string; close(): void }> {
    const ac = new AbortController();
    const res = await fetch(`${cp.url}/v1/envs/${env}/status/stream`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
    if (res.status !== 200) return { status: res.status, text: await res.text(), close: () => {} };
    const reader = res.body!.getReader();
    const first = await reader.read();
    return { status: 200, text: new TextDecoder().decode(first.value), close: () => ac.abort() };
  }

  it('answers 429 past the per-token cap, per token, and frees the slot when a stream closes', async () => {
    const open = [];
    for (let i = 0; i < PER_TOKEN; i++) {
      const s = await openStream(cp.adminToken);
      expect(s.status).toBe(200);
      expect(s.text).toContain('event: status');
      open.push(s);
    }
    const over = await openStream(cp.adminToken);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.text).error).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/already has 3 event streams open \(the limit is 3\)/) });
    const other = (await api.post('/v1/tokens', { name: 'other' })).body.token;
    const theirs = await openStream(other);
    expect(theirs.status).toBe(200);
    theirs.close();
    open.pop()!.close();
    const again = await waitFor(async () => {
      const s = await openStream(cp.adminToken);
      return s.status === 200 ? s : undefined;
    }, 5000, 'the slot to be freed');
    again.close();
    for (const s of open) s.close();
  });

  it('drops a client that does not read instead of queueing without bound', async () => {
    const hub = new StreamHub({ maxBufferedBytes: 256 * 1024 });
    const app = Fastify();
    let sent = 0;
    let maxQueued = 0;
    let closedBy: 'server' | null = null;
    app.get('/s', async (req, reply) => {
      const stream = openEventStream(req, reply, hub, { team: 't', tokenId: 'tok_x', admin: false, scope: 'read' });
      stream.onClose(() => (closedBy = 'server'));
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        for (let i = 0; i < 64 && !stream.closed; i++) {
          stream.send('line', chunk);
          sent++;
          maxQueued = Math.max(maxQueued, reply.raw.writableLength);
        }
        if (!stream.closed) setImmediate(pump);
      };
      pump();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const sock = connect(port, '127.0.0.1');
    sock.pause(); // never reads
    sock.write(`GET /s HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    try {
      await waitFor(() => closedBy === 'server', 15_000, 'the server to drop the client');
      expect(hub.openStreams('tok_x')).toBe(0);
      // what was queued to the client stayed bounded (plus one frame), however much was produced
      expect(maxQueued).toBeLessThanOrEqual(256 * 1024 + 17 * 1024);
      expect(sent).toBeGreaterThanOrEqual(16);
    } finally {
      sock.destroy();
      await app.close();
    }
  });
});
