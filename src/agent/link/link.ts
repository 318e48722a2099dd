/**
 * The agent's dial-out WebSocket to the control plane (DESIGN §6). The agent never listens for
 * the control plane; it connects to `<control>/agent/ws`, says `hello`, and on `welcome` starts
 * heartbeating and serving commands. It never gives up: every close or error reconnects with
 * jittered exponential backoff, and a refusal (say an enrollment key not created yet) is retried
 * the same way — except `HOST_REMOVED`: a host an operator removed stops for good.
 *
 * Identity: with `<dataDir>/credential.json` the hello carries `host_id` + `credential`, else the
 * enrollment key. A `welcome` carrying a credential is persisted *before* anything else happens
 * on the connection. If the stored credential is refused as UNAUTHORIZED and an enrollment key
 * is configured, the next attempt presents the key instead (the file is replaced only when a new
 * credential arrives).
 *
 * Frames are handled one at a time in arrival order; invalid ones are logged and ignored. An
 * `ack` (the control plane stored a result) goes to `onAck`; each heartbeat tick also calls
 * `onHeartbeat`, where the agent sends again results still waiting for their ack. Transfer frames
 * (`env move`; chunks to write come as binary frames) go to `onTransfer` and are answered on the
 * connection they came on.
 */
import WebSocket from 'ws';
import type { HostFacts } from '../../contracts/domain.js';
import { messageOf } from '../../contracts/errors.js';
import { decodeBinaryFrame, frameBuffer } from '../../contracts/binary-frame.js';
import { PROTOCOL_VERSION, controlMessage, transferWriteHeader, type AgentMessage, type ControlMessage } from '../../contracts/protocol.js';
import { describeZodError } from '../../contracts/validation.js';
import type { CommandMessage } from '../commands/dispatch.js';
import { backoffDelay, RECONNECT_BACKOFF, type BackoffPolicy } from './backoff.js';
import { loadCredential, saveCredential } from './credential.js';
import { agentSocketUrl } from './socket-url.js';

export interface LinkOptions {
  readonly control: string;
  readonly dataDir: string;
  readonly name: string;
  readonly enrollmentKey?: string;
  readonly facts: HostFacts;
  readonly log: (line: string) => void;
  /** After every welcome (credential already persisted). */
  readonly onWelcome: (hostId: string, welcome: { live_status_ms?: number; metrics_ms?: number; incident_threshold?: number }) => void;
  readonly onCommand: (msg: CommandMessage) => void;
  /** The control plane stored the result of command `id`. */
  readonly onAck?: (id: string) => void;
  /** A transfer frame (`env move`): the answer is sent back on the connection (null: none). */
  readonly onTransfer?: (msg: TransferFrame) => Promise<AgentMessage | Buffer | null>;
  /** Every heartbeat while welcomed. */
  readonly onHeartbeat?: () => void;
  /** What each heartbeat says besides itself (the datasets' free disk). */
  readonly heartbeat?: () => { readonly disk_free_bytes?: number };
  readonly backoff?: BackoffPolicy;
  /** The control plane said this host was removed (`refused` HOST_REMOVED): the link has stopped. */
  readonly onRemoved?: (message: string) => void;
}

export type TransferFrame = Extract<ControlMessage, { type: 'transfer_read' | 'transfer_write' | 'transfer_close' }>;

/** A connection that has heard nothing (not even a pong) for this many heartbeats is dead. */
const MISSED_HEARTBEATS = 3;

export class AgentLink {
  private readonly url: string;
  private ws: WebSocket | null = null;
  private stopped = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** Set when the stored credential was refused: present the enrollment key next time. */
  private preferEnrollmentKey = false;

  constructor(private readonly opts: LinkOptions) {
    this.url = agentSocketUrl(opts.control);
  }

  start(): void {
    void this.connect();
  }

  /** Send on the current connection; false when there is none (the caller keeps what matters). */
  send(msg: AgentMessage): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  /** Close the socket and stop reconnecting and heartbeating. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000, 'agent stopping');
    const timer = setTimeout(() => ws.terminate(), 1000);
    await closed;
    clearTimeout(timer);
  }

  private async helloMessage(): Promise<{ hello: AgentMessage; usedEnrollmentKey: boolean }> {
    const { name, facts, enrollmentKey, dataDir, log } = this.opts;
    const base = { type: 'hello' as const, protocol: PROTOCOL_VERSION, name, facts: { ...facts, runtimes: [...facts.runtimes] } };
    const cred = await loadCredential(dataDir).catch((err: unknown) => {
      log(`cannot read the stored credential: ${messageOf(err)}`);
      return null;
    });
    if (cred && !(this.preferEnrollmentKey && enrollmentKey)) return { hello: { ...base, host_id: cred.host_id, credential: cred.credential }, usedEnrollmentKey: false };
    if (enrollmentKey) return { hello: { ...base, enrollment_key: enrollmentKey }, usedEnrollmentKey: true };
    log('no stored credential and no enrollment key: the control plane will refuse this agent');
    return { hello: base, usedEnrollmentKey: false };
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const { hello, usedEnrollmentKey } = await this.helloMessage();
    if (this.stopped) return;
    const ws = new WebSocket(this.url, { handshakeTimeout: 10_000 });
    this.ws = ws;
    let queue = Promise.resolve();
    let lastHeard = Date.now();
    ws.on('open', () => {
      this.opts.log(`connected to ${this.url}`);
      ws.send(JSON.stringify(hello));
    });
    ws.on('pong', () => (lastHeard = Date.now()));
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      lastHeard = Date.now();
      queue = queue
        .then(() => (isBinary ? this.onBinaryFrame(ws, frameBuffer(data)) : this.onFrame(ws, data.toString(), usedEnrollmentKey, () => lastHeard)))
        .catch((err: unknown) => this.opts.log(`error handling a frame: ${messageOf(err)}`));
    });
    ws.on('error', (err) => this.opts.log(`link error: ${err.message}`));
    ws.on('close', (code) => {
      if (this.ws === ws) this.ws = null;
      this.stopHeartbeat();
      if (this.stopped) return;
      this.opts.log(`disconnected (${code})`);
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = backoffDelay(this.attempt++, this.opts.backoff ?? RECONNECT_BACKOFF);
    this.opts.log(`reconnecting in ${delay} ms`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
  }

  private async onFrame(ws: WebSocket, text: string, usedEnrollmentKey: boolean, lastHeard: () => number): Promise<void> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.opts.log(`ignoring a frame that is not JSON (${text.slice(0, 80)})`);
      return;
    }
    const parsed = controlMessage.safeParse(json);
    if (!parsed.success) {
      this.opts.log(`ignoring an invalid frame: ${describeZodError(parsed.error)}`);
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'welcome': {
        if (msg.credential !== undefined) {
          try {
            await saveCredential(this.opts.dataDir, { host_id: msg.host_id, credential: msg.credential });
          } catch (err) {
            // Without the credential on disk the next start could not reconnect: drop this session and try again.
            this.opts.log(`cannot persist the host credential: ${messageOf(err)}; reconnecting`);
            ws.terminate();
            return;
          }
        }
        this.attempt = 0;
        this.preferEnrollmentKey = false;
        this.opts.log(`welcomed as ${msg.host_id}${msg.credential !== undefined ? ' (credential stored)' : ''}`);
        this.startHeartbeat(ws, msg.heartbeat_ms, lastHeard);
        this.opts.onWelcome(msg.host_id, msg);
        return;
      }
      case 'refused': {
        this.opts.log(`refused (${msg.code}): ${msg.message}`);
        if (msg.code === 'HOST_REMOVED') {
          // An operator removed this host: stop for good rather than re-enroll with the key.
          this.stopped = true;
          this.opts.log('this host was removed by an operator; the agent stops connecting');
          ws.close(1000, 'removed');
          this.opts.onRemoved?.(msg.message);
          return;
        }
        if (msg.code === 'UNAUTHORIZED' && !usedEnrollmentKey && this.opts.enrollmentKey) {
          this.preferEnrollmentKey = true;
          this.opts.log('the stored credential was refused; presenting the enrollment key next time');
        }
        ws.close(1000, 'refused');
        return;
      }
      case 'command':
        this.opts.onCommand({ id: msg.id, kind: msg.kind, payload: msg.payload });
        return;
      case 'ack':
        this.opts.onAck?.(msg.id);
        return;
      case 'transfer_read':
      case 'transfer_close':
        return this.transfer(ws, msg);
    }
  }

  /** A binary frame: the only one is `transfer_write` (a chunk to write); anything else is ignored. */
  private async onBinaryFrame(ws: WebSocket, frame: Buffer): Promise<void> {
    const decoded = decodeBinaryFrame(frame);
    const header = decoded ? transferWriteHeader.safeParse(decoded.header) : null;
    if (!decoded || !header?.success) {
      this.opts.log('ignoring a binary frame that is not a transfer_write');
      return;
    }
    return this.transfer(ws, { ...header.data, data: decoded.payload });
  }

  /** Answer a transfer frame on the connection it came on: bytes as a binary frame, the rest as text. */
  private async transfer(ws: WebSocket, msg: TransferFrame): Promise<void> {
    const reply = await this.opts.onTransfer?.(msg);
    if (!reply || ws.readyState !== WebSocket.OPEN) return;
    if (Buffer.isBuffer(reply)) ws.send(reply, { binary: true });
    else ws.send(JSON.stringify(reply));
  }

  private startHeartbeat(ws: WebSocket, everyMs: number, lastHeard: () => number): void {
    this.stopHeartbeat();
    const period = Math.max(50, everyMs);
    this.heartbeatTimer = setInterval(() => {
      if (Date.now() - lastHeard() > MISSED_HEARTBEATS * period) {
        this.opts.log(`nothing heard for ${MISSED_HEARTBEATS} heartbeats; reconnecting`);
        ws.terminate();
        return;
      }
      this.send({ type: 'heartbeat', ...this.opts.heartbeat?.() });
      if (ws.readyState === WebSocket.OPEN) ws.ping();
      this.opts.onHeartbeat?.();
    }, period);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }
}
