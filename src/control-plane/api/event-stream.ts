/**
 * A server-sent event stream on a hijacked Fastify reply: the headers, `event:`/`data:` frames,
 * a keep-alive comment every 15 s (proxies drop idle connections), and one `close` that runs the
 * caller's clean-up exactly once, whether the client left or the server ended the stream.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface EventStream {
  send(event: string, data: unknown): void;
  /** Runs `fn` once when the stream closes (either side). */
  onClose(fn: () => void): void;
  close(): void;
  readonly closed: boolean;
}

export function openEventStream(req: FastifyRequest, reply: FastifyReply): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const cleanups: (() => void)[] = [];
  let closed = false;
  const keepAlive = setInterval(() => !closed && res.write(': keep-alive\n\n'), 15_000);
  const stream: EventStream = {
    send(event, data) {
      if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    onClose(fn) {
      cleanups.push(fn);
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      for (const fn of cleanups) fn();
      res.end();
    },
    get closed() {
      return closed;
    },
  };
  req.raw.on('close', () => stream.close());
  return stream;
}
