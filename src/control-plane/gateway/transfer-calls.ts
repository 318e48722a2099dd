/**
 * Transfer frames (`env move`, contracts/protocol.ts "Transfers") the control plane sends to an
 * agent and the answers it waits for. Unlike commands they are not persisted: a frame is asked
 * for on the socket this replica holds, and a socket that closes fails every frame open on it
 * (the move's transfer phase then starts again from its beginning; writes land at their offsets).
 */
import type WebSocket from 'ws';
import { encodeBinaryFrame } from '../../contracts/binary-frame.js';
import { DenvError } from '../../contracts/errors.js';
import type { AgentMessage, ControlMessage } from '../../contracts/protocol.js';

/** An answer: `transfer_data` with the bytes read (a binary frame) or an error, `transfer_written`. */
export type TransferReply = Extract<AgentMessage, { type: 'transfer_written' }> | { type: 'transfer_data'; transfer: string; offset: number; data?: Buffer; error?: string };
type Reply = TransferReply;
type Request = Extract<ControlMessage, { type: 'transfer_read' | 'transfer_write' }>;

/** An agent that has not answered a chunk in this long is stuck (a chunk is at most 1 MiB). */
export const TRANSFER_FRAME_TIMEOUT_MS = 60_000;

const keyOf = (host: string, type: Reply['type'], transfer: string, offset: number) => `${host} ${type} ${transfer} ${offset}`;

export class TransferCalls {
  private readonly open = new Map<string, { host: string; resolve(r: Reply): void; reject(e: Error): void; timer: NodeJS.Timeout }>();

  /** `socketOf`: the socket this replica holds for a host (the gateway's). */
  constructor(private readonly socketOf: (host: string) => WebSocket | undefined) {}

  /** Up to `length` bytes of transfer `transfer`'s archive on `host` at `offset` (fewer at its end). */
  async read(host: string, transfer: string, offset: number, length: number): Promise<Buffer> {
    const reply = await this.request(host, { type: 'transfer_read', transfer, offset, length });
    if (reply.type !== 'transfer_data' || reply.error !== undefined || !reply.data) throw new DenvError('AGENT_ERROR', `host ${host} could not read transfer ${transfer} at ${offset}: ${reply.error ?? 'no data'}`);
    return reply.data;
  }

  /** Write `data` at `offset` of transfer `transfer`'s archive on `host`; resolves once it is on disk. */
  async write(host: string, transfer: string, offset: number, data: Buffer): Promise<void> {
    const reply = await this.request(host, { type: 'transfer_write', transfer, offset, data });
    if (reply.error !== undefined) throw new DenvError('AGENT_ERROR', `host ${host} could not write transfer ${transfer} at ${offset}: ${reply.error}`);
  }

  /** The transfer is over: `host` removes its files (best effort: an agent sweeps what is left a day later). */
  close(host: string, transfer: string): void {
    const ws = this.socketOf(host);
    if (ws && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'transfer_close', transfer } satisfies ControlMessage));
  }

  /** The socket this replica holds for `host`; a move is relayed by the replica holding both hosts. */
  private socket(host: string): WebSocket {
    const ws = this.socketOf(host);
    if (!ws || ws.readyState !== ws.OPEN) {
      throw new DenvError('AGENT_UNREACHABLE', `host ${host} is not connected to this control plane replica (a move is relayed by the replica both hosts are connected to)`);
    }
    return ws;
  }

  /** Send `msg` on `host`'s socket and wait for its answer. */
  private request(host: string, msg: Request, timeoutMs = TRANSFER_FRAME_TIMEOUT_MS): Promise<Reply> {
    const ws = this.socket(host);
    const key = keyOf(host, msg.type === 'transfer_read' ? 'transfer_data' : 'transfer_written', msg.transfer, msg.offset);
    return new Promise<Reply>((resolve, reject) => {
      const earlier = this.open.get(key);
      if (earlier) {
        clearTimeout(earlier.timer);
        earlier.reject(new DenvError('CONFLICT', `transfer ${msg.transfer}: offset ${msg.offset} asked for again`));
      }
      const timer = setTimeout(() => {
        if (this.open.get(key)?.timer === timer) this.open.delete(key);
        reject(new DenvError('TIMEOUT', `host ${host} did not answer ${msg.type} of transfer ${msg.transfer} at offset ${msg.offset} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.open.set(key, { host, resolve, reject, timer });
      // A chunk to write goes as a binary frame (binary-frame.ts), a read as text.
      const frame = msg.type === 'transfer_write' ? encodeBinaryFrame({ type: msg.type, transfer: msg.transfer, offset: msg.offset }, msg.data) : JSON.stringify(msg);
      ws.send(frame, { binary: typeof frame !== 'string' }, (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.open.delete(key);
        reject(new DenvError('AGENT_UNREACHABLE', `host ${host}: ${err.message}`));
      });
    });
  }

  /** An answer from `host`; one nobody waits for (late, after a timeout) is dropped. */
  answered(host: string, reply: Reply): void {
    const key = keyOf(host, reply.type, reply.transfer, reply.offset);
    const waiter = this.open.get(key);
    if (!waiter) return;
    this.open.delete(key);
    clearTimeout(waiter.timer);
    waiter.resolve(reply);
  }

  /** `host`'s socket closed: every frame open on it fails. */
  closed(host: string): void {
    for (const [key, w] of this.open) {
      if (w.host !== host) continue;
      this.open.delete(key);
      clearTimeout(w.timer);
      w.reject(new DenvError('AGENT_UNREACHABLE', `host ${host} disconnected during a transfer`));
    }
  }
}
