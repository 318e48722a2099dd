/**
 * A server-sent event stream on a hijacked Fastify reply: the headers, `event:`/`data:` frames,
 * a keep-alive comment every 15 s (proxies drop idle connections), and one `close` that runs the
 * caller's clean-up exactly once, whether the client left or the server ended the stream.
 *
 * Limits (issue 10, item 9): the stream takes one of its token's slots in the StreamHub (429
 * before anything is written when none is left) and gives it back on close. Back-pressure: a
 * client that does not read never makes the server queue without bound — `sendLatest` (a state
 * such as the env's status) keeps only the newest value while the socket is backed up and writes
 * it on `drain`; `send` (every item counts, such as log lines) drops the client once more than
 * `maxBufferedBytes` are queued to it (it reconnects and resumes).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Auth } from './route.js';
import type { StreamHub } from './stream-hub.js';

export interface EventStream {
  send(event: string, data: unknown): void;
  /** Send a state: while the client is backed up only the newest one is kept, and written on drain. */
  sendLatest(event: string, data: unknown): void;
  /** Runs `fn` once when the stream closes (either side). */
  onClose(fn: () => void): void;
  close(): void;
  readonly closed: boolean;
}

export function openEventStream(req: FastifyRequest, reply: FastifyReply, hub: StreamHub, auth: Auth): EventStream {
  const release = hub.admit(auth.tokenId); // throws 429 before the reply is taken over
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const cleanups: (() => void)[] = [release];
  let closed = false;
  let pending: string | null = null;
  const backedUp = () => res.writableNeedDrain;
  const write = (frame: string) => {
    if (res.writableLength + frame.length > hub.limits.maxBufferedBytes) {
      // The client is not reading: drop it rather than queue without bound.
      stream.close();
      res.destroy();
      return;
    }
    res.write(frame);
  };
  const onDrain = () => {
    if (pending !== null && !closed) {
      const frame = pending;
      pending = null;
      write(frame);
    }
  };
  res.on('drain', onDrain);
  const keepAlive = setInterval(() => !closed && !backedUp() && res.write(': keep-alive\n\n'), 15_000);
  const stream: EventStream = {
    send(event, data) {
      if (!closed) write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    sendLatest(event, data) {
      if (closed) return;
      const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      if (backedUp()) pending = frame;
      else write(frame);
    },
    onClose(fn) {
      cleanups.push(fn);
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.off('drain', onDrain);
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
