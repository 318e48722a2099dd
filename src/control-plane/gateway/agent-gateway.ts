/**
 * The agents' side of `/agent/ws`. An agent says `hello` with an enrollment key (first time; it
 * gets a host credential back, stored here only as a hash) or with its credential. After `welcome`
 * it heartbeats and answers commands. Commands live in the `commands` table: sending one is
 * "persist, then write to the socket if connected"; every open command of a host is re-sent when
 * it (re)connects, and the agent applies a command id at most once. A result is stored once (the
 * first copy to arrive) and every copy is acknowledged with `ack` once the store has answered; a
 * result that could not be stored (the database is restarting) is not acknowledged, and the agent
 * sends it again.
 */
import type { WebSocket } from 'ws';
import { newId, newSecret } from '../../contracts/ids.js';
import { DenvError, messageOf } from '../../contracts/errors.js';
import { decodeBinaryFrame, frameBuffer } from '../../contracts/binary-frame.js';
import { agentMessage, transferDataHeader, PROTOCOL_VERSION, type AgentMessage, type Commands, type CommandKind, type ControlMessage } from '../../contracts/protocol.js';
import { killPoint, killPointArmed } from '../../lib/kill-point.js';
import { hashSecret } from '../auth/secrets.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import type { Bus } from '../bus.js';
import type { Notifier } from '../store/notifier.js';
import { TransferCalls } from './transfer-calls.js';
import { acceptTelemetry } from '../telemetry/intake.js';

export interface GatewayOptions {
  readonly db: Db;
  readonly bus: Bus;
  /** Cross-replica routing (LISTEN/NOTIFY on a server; the local bus on the embedded store). */
  readonly notifier: Notifier;
  /** This control plane's id, recorded on the hosts whose sockets it holds. */
  readonly replica: string;
  readonly heartbeatMs: number;
  /** How often agents probe their services for live status. */
  readonly liveStatusMs: number;
  /** A command already sent is not sent again for this long (seed 002: 10 min), even after a
   *  reconnect or a restart; the agent keeps running it and answers when it is done. */
  readonly resendAfterMs: number;
  /** Told to agents in `welcome`: how often to sample metrics, and after how many occurrences a recurring error is an incident. */
  readonly metricsMs?: number;
  readonly incidentThreshold?: number;
  /** Admission limits for sockets that have not been welcomed yet (issue 10, item 4). */
  readonly admission?: Partial<AdmissionLimits>;
  readonly log: (line: string) => void;
}

/**
 * Anyone who can reach the port can open `/agent/ws`, so until `welcome` a socket is held to
 * little: its frames are at most `preHelloMaxBytes` (the server's `maxPayload`; a larger frame is
 * refused from its header, before its payload is buffered), its first frame must be a valid
 * `hello`, it must be welcomed within `helloTimeoutMs`, and at most `maxUnauthenticated` such
 * sockets are held at once (more are closed on arrival). After `welcome` the socket's limit is
 * raised to `welcomedMaxBytes` (agents send log batches and command results). Checking a hello
 * costs a parse and a database lookup, so at most `hellosPerSecond` first frames are read (a token
 * bucket with a burst of as many); a first frame over the rate is closed with 1013 ("try again
 * later") unread, and the agent's backoff retries it.
 */
export interface AdmissionLimits {
  readonly preHelloMaxBytes: number;
  readonly welcomedMaxBytes: number;
  readonly helloTimeoutMs: number;
  readonly maxUnauthenticated: number;
  readonly hellosPerSecond: number;
}

export const DEFAULT_ADMISSION: AdmissionLimits = {
  // A real hello (name, facts, a key or credential) is about 1 KiB.
  preHelloMaxBytes: 16 * 1024,
  welcomedMaxBytes: 16 * 1024 * 1024,
  helloTimeoutMs: 10_000,
  maxUnauthenticated: 64,
  hellosPerSecond: 100,
};

/** ws keeps the frame limit on the socket's receiver; raise it for a welcomed agent. */
function setMaxPayload(ws: WebSocket, bytes: number): void {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes;
}

interface CommandRow {
  id: string; host: string; deployment: string | null; kind: CommandKind; payload: unknown; status: string;
  result: unknown; error: { code: string; message: string } | null; sent_at: unknown;
}

function frameBytes(raw: unknown): number {
  if (Buffer.isBuffer(raw)) return raw.length;
  if (Array.isArray(raw)) return raw.reduce((n: number, b: Buffer) => n + b.length, 0);
  if (raw instanceof ArrayBuffer) return raw.byteLength;
  return String(raw).length;
}

const COMMAND_COLUMNS = 'id, host, deployment, kind, payload, status, result, error, sent_at';

/**
 * A CTE for a statement that records a command's send (`write`) or its result (`result`), whose
 * CTE `sent` returns the command's `was` (its status before the statement), id, kind, deployment
 * and host: it inserts the `cmd_sent` event on the env of the command's deployment when the
 * command was still `pending` — the first send. In the same statement: every statement is a round
 * trip that the API's reads may wait behind on the embedded store (issue 11).
 */
const firstSendEvent = (recorded?: 'with its result') => `first_send as (
  insert into events (team, subject, type, data)
  select d.team, 'env:' || d.env, 'cmd_sent',
    jsonb_build_object('command', sent.id, 'kind', sent.kind, 'deployment', sent.deployment, 'host', sent.host${recorded ? `, 'recorded', '${recorded}'` : ''})
  from sent join deployments d on d.id = sent.deployment where sent.was = 'pending')`;

/** A waiting `call` reads its command again this often, whatever it heard: a `denv_result` or
 *  `denv_command` notification sent while a replica's LISTEN connection was down (a database
 *  restart) is lost, and the command would otherwise wait for the phase timeout. */
const RECHECK_MS = 5000;

export interface CallOptions {
  /** The deployment this command belongs to, and a key unique within it: together they make the
   *  command idempotent across control-plane restarts (the same phase re-run finds the same id).
   *  null for read-only requests outside any deployment (telemetry: logs.request, status.refresh). */
  readonly deployment: string | null;
  readonly key: string;
  readonly signal?: AbortSignal;
  /** Fail at once with AGENT_UNREACHABLE instead of waiting when the host is not connected. */
  readonly requireConnected?: boolean;
}

export class AgentGateway {
  private readonly sockets = new Map<string, WebSocket>();
  /** Transfer frames (`env move`): read, write and close a transfer's archive on a host this replica holds. */
  readonly transfers = new TransferCalls((host) => this.sockets.get(host));
  /** Sockets not welcomed yet (admission limits). */
  private unauthenticated = 0;
  /** Token bucket of hello checks (refilled at `hellosPerSecond`). */
  private helloTokens = 0;
  private helloRefilledAt = Date.now();
  readonly admission: AdmissionLimits;
  private readonly onRoute = (id: string) => void this.routed(id).catch((err) => this.opts.log(`gateway: route ${id}: ${messageOf(err)}`));
  private readonly onHostChange = (id: string) => void this.checkRevoked(id).catch(() => {});
  /** Results this replica is storing, by command id, while it announces them (`result`). */
  private readonly stored = new Map<string, CommandRow>();

  constructor(private readonly opts: GatewayOptions) {
    this.admission = { ...DEFAULT_ADMISSION, ...opts.admission };
    this.helloTokens = this.admission.hellosPerSecond;
    opts.bus.on('route', this.onRoute);
    opts.bus.on('host', this.onHostChange);
  }

  /** Whether this replica holds the host's socket. */
  isConnected(hostId: string): boolean {
    return this.sockets.has(hostId);
  }

  /** Whether some replica holds the host's socket. */
  async isReachable(hostId: string): Promise<boolean> {
    if (this.isConnected(hostId)) return true;
    const rows = await this.opts.db.query<{ connected_to: string | null }>("select connected_to from hosts where id = $1 and status <> 'removed'", [hostId]);
    return Boolean(rows[0]?.connected_to);
  }

  /** Resolve true once `hostId` is reachable, false after `ms` (or when `signal` aborts). */
  async waitConnected(hostId: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    return (await this.waitForHost((id) => id === hostId, async () => (await this.isReachable(hostId)) || null, ms, signal)) ?? false;
  }

  /**
   * Resolve with what `check` answers once it answers something, or null after `ms` (or when
   * `signal` aborts). `check` runs now and again whenever a host whose id `concerns` changes
   * (connects, disconnects, is removed) on any replica: no polling.
   */
  async waitForHost<T>(concerns: (hostId: string) => boolean, check: () => Promise<T | null>, ms: number, signal?: AbortSignal): Promise<T | null> {
    const now = await check();
    if (now !== null || signal?.aborted) return now;
    return new Promise((resolve) => {
      const done = (value: T | null) => {
        clearTimeout(timer);
        this.opts.bus.off('host', onHost);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onHost = (id: string) => {
        if (concerns(id)) void check().then((v) => v !== null && done(v), () => {});
      };
      const onAbort = () => done(null);
      const timer = setTimeout(() => done(null), ms);
      this.opts.bus.on('host', onHost);
      signal?.addEventListener('abort', onAbort);
      if (signal?.aborted) done(null); // aborted while the first check ran
    });
  }

  /** Hosts of a team whose socket some replica holds, sidecars first, oldest first. */
  async connectedHosts(team: string): Promise<string[]> {
    const rows = await this.opts.db.query<{ id: string }>(
      "select id from hosts where team = $1 and status = 'connected' and connected_to is not null order by case kind when 'sidecar' then 0 else 1 end, created_at",
      [team],
    );
    return rows.map((r) => r.id);
  }

  /** Close every agent socket (shutdown). */
  async closeAll(): Promise<void> {
    this.opts.bus.off('route', this.onRoute);
    this.opts.bus.off('host', this.onHostChange);
    const held = [...this.sockets.keys()];
    for (const ws of this.sockets.values()) ws.close(1001, 'control plane shutting down');
    this.sockets.clear();
    if (held.length > 0) await this.opts.db.query('update hosts set connected_to = null where id = any($1) and connected_to = $2', [held, this.opts.replica]).catch(() => {});
  }

  /** Whether a new unauthenticated socket would be accepted now: checked on the HTTP upgrade
   *  request, so a socket over the cap costs no WebSocket handshake. */
  admitting(): boolean {
    return this.unauthenticated < this.admission.maxUnauthenticated;
  }

  private takeHelloToken(): boolean {
    const now = Date.now();
    const rate = this.admission.hellosPerSecond;
    this.helloTokens = Math.min(rate, this.helloTokens + ((now - this.helloRefilledAt) / 1000) * rate);
    this.helloRefilledAt = now;
    if (this.helloTokens < 1) return false;
    this.helloTokens -= 1;
    return true;
  }

  /** Serve one agent connection until it closes. */
  accept(ws: WebSocket): void {
    const limits = this.admission;
    if (this.unauthenticated >= limits.maxUnauthenticated) {
      ws.close(1013, 'too many unauthenticated connections; try again later');
      return;
    }
    this.unauthenticated++;
    let hostId: string | null = null;
    /** 'waiting' for the first frame, 'hello' being checked, 'welcomed'. */
    let stage: 'waiting' | 'hello' | 'welcomed' = 'waiting';
    let counted = true;
    const admitted = () => {
      if (counted) this.unauthenticated--;
      counted = false;
      clearTimeout(deadline);
    };
    const deadline = setTimeout(() => {
      if (stage !== 'welcomed') ws.close(4008, `no hello within ${limits.helloTimeoutMs} ms`);
    }, limits.helloTimeoutMs);
    const send = (msg: ControlMessage) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(msg));
    ws.on('message', (raw, isBinary) => {
      if (stage === 'hello') return; // nothing is read while the hello is checked
      if (isBinary) {
        // Only a welcomed agent sends binary frames: the bytes a transfer_read asked for.
        if (stage !== 'welcomed' || !hostId) ws.close(1008, 'binary frames only after welcome');
        else this.transferBytes(hostId, raw);
        return;
      }
      if (stage === 'waiting' && frameBytes(raw) > limits.preHelloMaxBytes) {
        ws.close(1009, 'frame too large before welcome');
        return;
      }
      // Over the hello rate the frame is not even parsed.
      if (stage === 'waiting' && !this.takeHelloToken()) {
        ws.close(1013, 'too many hellos; try again later');
        return;
      }
      let msg: AgentMessage;
      try {
        msg = agentMessage.parse(JSON.parse(String(raw)));
      } catch {
        if (stage === 'waiting') {
          ws.close(1008, 'the first frame must be a valid hello');
          return;
        }
        this.opts.log('gateway: ignored a malformed frame from an agent');
        return;
      }
      if (stage === 'waiting' && msg.type !== 'hello') {
        ws.close(1008, 'the first frame must be a hello');
        return;
      }
      void (async () => {
        if (msg.type === 'hello') {
          if (stage === 'welcomed') return; // one hello per connection
          stage = 'hello';
          try {
            const welcome = await this.hello(msg);
            if (ws.readyState !== ws.OPEN) return;
            hostId = welcome.host_id;
            stage = 'welcomed';
            admitted();
            setMaxPayload(ws, limits.welcomedMaxBytes);
            const previous = this.sockets.get(hostId);
            if (previous && previous !== ws) previous.close(4000, 'replaced by a newer connection');
            this.sockets.set(hostId, ws);
            await this.opts.db.query('update hosts set connected_to = $2 where id = $1', [hostId, this.opts.replica]);
            send(welcome);
            await this.opts.notifier.notify('denv_host', hostId);
            await this.resendOpen(hostId);
          } catch (err) {
            const e = err instanceof DenvError ? err : new DenvError('INTERNAL', messageOf(err));
            send({ type: 'refused', code: e.code, message: e.message });
            ws.close(4001, e.code);
          }
          return;
        }
        if (!hostId) return; // nothing before hello
        if (msg.type === 'heartbeat') await this.heartbeat(hostId, undefined, msg.disk_free_bytes);
        else if (msg.type === 'result') {
          await this.result(hostId, msg);
          send({ type: 'ack', id: msg.id });
        }
        else if (msg.type === 'live_status') await this.liveStatus(hostId, msg);
        else if (msg.type === 'output') await this.output(hostId, msg);
        else if (msg.type === 'logs' || msg.type === 'metrics' || msg.type === 'incident') await acceptTelemetry(this.opts.db, this.opts.bus, hostId, msg);
        else if (msg.type === 'transfer_data' || msg.type === 'transfer_written') this.transfers.answered(hostId, msg);
      })().catch((err) => this.opts.log(`gateway: ${messageOf(err)}`));
    });
    ws.on('close', () => {
      admitted();
      if (hostId && this.sockets.get(hostId) === ws) {
        const id = hostId;
        this.sockets.delete(id);
        this.transfers.closed(id);
        void this.opts.db
          .query('update hosts set connected_to = null where id = $1 and connected_to = $2', [id, this.opts.replica])
          .then(() => this.opts.notifier.notify('denv_host', id))
          .catch(() => {});
      }
    });
    ws.on('error', () => {});
  }

  /**
   * Live output of a command this host runs: kept with the command's deployment as a
   * `deployment.output` event and passed to the deployment's live streams on this replica. Output
   * of a command that is not open on this host (finished, another host's) is dropped.
   */
  private async output(hostId: string, msg: Extract<AgentMessage, { type: 'output' }>): Promise<void> {
    const rows = await this.opts.db.query<{ team: string; deployment: string }>(
      "select d.team, d.id as deployment from commands c join deployments d on d.id = c.deployment where c.id = $1 and c.host = $2 and c.status in ('pending', 'sent')",
      [msg.id, hostId],
    );
    const open = rows[0];
    if (!open || msg.lines.length === 0) return;
    const event = await appendEvent(this.opts.db, { team: open.team, subject: `dep:${open.deployment}`, type: 'deployment.output', data: { service: msg.service, lines: msg.lines } });
    this.opts.bus.emit('output', open.deployment, { event, service: msg.service, lines: msg.lines });
  }

  /** Tell every replica the host changed (e.g. removed: the one holding its socket closes it). */
  async hostChanged(hostId: string): Promise<void> {
    await this.opts.notifier.notify('denv_host', hostId);
  }

  /** A removed host's live socket is closed at once (revocation), whichever replica holds it. */
  private async checkRevoked(hostId: string): Promise<void> {
    const ws = this.sockets.get(hostId);
    if (!ws) return;
    const rows = await this.opts.db.query<{ status: string }>('select status from hosts where id = $1', [hostId]);
    if (!rows[0] || rows[0].status === 'removed') {
      this.sockets.delete(hostId);
      ws.close(4003, 'host removed: credential revoked');
    }
  }

  private async hello(msg: Extract<AgentMessage, { type: 'hello' }>): Promise<ControlMessage & { type: 'welcome' }> {
    const { db } = this.opts;
    if (msg.protocol !== PROTOCOL_VERSION) throw new DenvError('BAD_REQUEST', `protocol ${msg.protocol} is not supported (control plane speaks ${PROTOCOL_VERSION})`);
    if (msg.host_id && msg.credential) {
      const rows = await db.query<{ id: string; status: string }>('select id, status from hosts where id = $1 and credential_hash = $2', [msg.host_id, hashSecret(msg.credential)]);
      const host = rows[0];
      if (!host || host.status === 'removed') {
        // A host an operator removed must stay removed: its agent is told so (and stops) instead
        // of being invited to re-enroll with its enrollment key.
        const removed = await db.query<{ status: string }>("select status from hosts where id = $1 and status = 'removed'", [msg.host_id]);
        if (removed[0]) throw new DenvError('HOST_REMOVED', `host ${msg.host_id} was removed by an operator; enroll it again with a new enrollment key and a fresh data dir`);
        throw new DenvError('UNAUTHORIZED', 'unknown host or revoked credential');
      }
      await this.heartbeat(host.id, msg.facts);
      return { type: 'welcome', host_id: host.id, heartbeat_ms: this.opts.heartbeatMs, live_status_ms: this.opts.liveStatusMs, metrics_ms: this.opts.metricsMs, incident_threshold: this.opts.incidentThreshold };
    }
    if (!msg.enrollment_key) throw new DenvError('UNAUTHORIZED', 'hello needs an enrollment key or a host credential');
    // An unknown key is refused after one indexed read, outside any transaction: anyone can send
    // hellos, and a transaction costs three round trips on the embedded store.
    const known = await db.query<{ id: string }>('select id from enrollment_keys where hash = $1', [hashSecret(msg.enrollment_key)]);
    if (!known[0]) throw new DenvError('UNAUTHORIZED', 'unknown enrollment key');
    return db.tx(async (tx) => {
      const keys = await tx.query<{ id: string; team: string; single_use: boolean; used_at: unknown; expired: boolean; revoked: boolean; machine: string | null }>(
        'select id, team, single_use, used_at, expires_at < now() as expired, revoked_at is not null as revoked, machine from enrollment_keys where hash = $1 for update',
        [hashSecret(msg.enrollment_key!)],
      );
      const key = keys[0];
      if (!key) throw new DenvError('UNAUTHORIZED', 'unknown enrollment key');
      if (key.revoked) throw new DenvError('UNAUTHORIZED', 'enrollment key revoked');
      if (key.expired) throw new DenvError('UNAUTHORIZED', 'enrollment key expired');
      if (key.single_use && key.used_at) throw new DenvError('UNAUTHORIZED', 'enrollment key already used');
      const id = newId('host');
      const credential = newSecret('dhc');
      // A key made for a machine a cloud provisioned (clouds/provision.ts) enrolls that machine:
      // the host is a `provider` host, linked to its machine both ways.
      // Sent together, run in this order on the transaction's connection: one round trip (issue 11).
      await Promise.all([
        tx.query(
          'insert into hosts (id, team, name, kind, status, facts, credential_hash, last_heartbeat_at, machine) values ($1, $2, $3, $4, \'connected\', $5, $6, now(), $7)',
          [id, key.team, msg.name, key.machine ? 'provider' : 'sidecar', JSON.stringify(msg.facts), hashSecret(credential), key.machine],
        ),
        key.machine ? tx.query('update machines set host = $2 where id = $1', [key.machine, id]) : undefined,
        tx.query('update enrollment_keys set used_at = now() where id = $1', [key.id]),
        appendEvent(tx, { team: key.team, subject: `host:${id}`, type: 'host.enrolled', data: { name: msg.name, ...(key.machine ? { machine: key.machine } : {}) } }),
      ]);
      return { type: 'welcome' as const, host_id: id, credential, heartbeat_ms: this.opts.heartbeatMs, live_status_ms: this.opts.liveStatusMs, metrics_ms: this.opts.metricsMs, incident_threshold: this.opts.incidentThreshold };
    });
  }

  /** A heartbeat (or a hello) makes the host `connected`; a change of status is an event. A hello
   *  brings all its facts, a heartbeat the datasets' free disk. */
  private async heartbeat(hostId: string, facts?: unknown, diskFree?: number): Promise<void> {
    const rows = await this.opts.db.query<{ team: string; previous: string }>(
      `with prev as (select status from hosts where id = $1)
       update hosts set last_heartbeat_at = now(), status = 'connected',
         facts = case when $3::bigint is null then coalesce($2::jsonb, facts) else jsonb_set(coalesce($2::jsonb, facts, '{}'::jsonb), '{disk_free_bytes}', to_jsonb($3::bigint)) end
       where id = $1 and status <> 'removed' returning team, (select status from prev) as previous`,
      [hostId, facts === undefined ? null : JSON.stringify(facts), diskFree ?? null],
    );
    const row = rows[0];
    if (row && row.previous !== 'connected') {
      await appendEvent(this.opts.db, { team: row.team, subject: `host:${hostId}`, type: 'host.status', data: { status: 'connected' } });
    }
  }

  /** Store a result, once: a copy of a result already stored, or of a command this host was never
   *  sent (deleted since, say), changes nothing. Throws when the database cannot be reached. */
  private async result(hostId: string, msg: Extract<AgentMessage, { type: 'result' }>): Promise<void> {
    if (killPointArmed('result:')) {
      const kind = (await this.opts.db.query<{ kind: string }>('select kind from commands where id = $1', [msg.id]))[0]?.kind;
      if (kind) killPoint(`result:${kind}`);
    }
    // A result for a command never recorded as sent (a control plane died between writing it to
    // the socket and recording the send, `write`) records its `cmd_sent` now, so the env's event
    // log still shows every command that reached a host, once.
    const rows = await this.opts.db.query<CommandRow>(
      `with sent as (
         update commands set status = $3, result = $4, error = $5, finished_at = now() where id = $1 and host = $2 and status in ('pending', 'sent')
         returning (select status from commands where id = $1) as was, ${COMMAND_COLUMNS}),
       ${firstSendEvent('with its result')}
       select ${COMMAND_COLUMNS} from sent`,
      [msg.id, hostId, msg.ok ? 'done' : 'error', JSON.stringify(msg.result ?? null), msg.ok ? null : JSON.stringify(msg.error ?? { code: 'AGENT_ERROR', message: 'unknown error' })],
    );
    if (!rows[0]) return;
    // A `call` on this replica waiting for it takes the stored row from here (the local
    // notifier delivers during `notify`) instead of reading it again.
    this.stored.set(msg.id, rows[0]);
    try {
      await this.opts.notifier.notify('denv_result', msg.id);
    } finally {
      this.stored.delete(msg.id);
    }
  }

  /** Keep the env's latest live status (only from the host it is placed on); the monitor reads it. */
  private async liveStatus(hostId: string, msg: Extract<AgentMessage, { type: 'live_status' }>): Promise<void> {
    // received_at is the control plane's clock: the monitor compares it with the env's last change.
    const rows = await this.opts.db.query<{ id: string }>(
      "update envs set live_status = jsonb_set($3::jsonb, '{received_at}', to_jsonb(now())) where id = $1 and host = $2 returning id",
      [msg.env, hostId, JSON.stringify({ at: msg.at, workloads: msg.workloads })],
    );
    if (rows.length > 0) {
      this.opts.bus.emit('kick');
      this.opts.bus.emit('telemetry', msg.env);
    }
  }

  /**
   * After a (re)connection: send every open command of the host at once (issue 11), whatever the
   * resend window. The agent answers a finished id from its record (a result lost with a crashed
   * control plane or a dropped socket arrives now), joins a run still in flight, and resumes a
   * run its own restart cut short (commands are idempotent), so no deployment waits for a timeout.
   */
  private async resendOpen(hostId: string): Promise<void> {
    const open = await this.opts.db.query<CommandRow>(`select ${COMMAND_COLUMNS} from commands where host = $1 and status in ('pending', 'sent') order by created_at`, [hostId]);
    for (const c of open) await this.write(c);
  }

  /** A binary frame from `hostId`: a transfer's bytes (binary-frame.ts), handed to the read waiting for them. */
  private transferBytes(hostId: string, raw: WebSocket.RawData): void {
    const decoded = decodeBinaryFrame(frameBuffer(raw));
    const header = decoded ? transferDataHeader.safeParse(decoded.header) : null;
    if (!decoded || !header?.success) {
      this.opts.log('gateway: ignored a binary frame from an agent that is not transfer_data');
      return;
    }
    this.transfers.answered(hostId, { ...header.data, data: decoded.payload });
  }

  /** Another replica asked for this command to be sent: send it if this replica holds the host. */
  private async routed(id: string): Promise<void> {
    const row = (await this.opts.db.query<CommandRow>(`select ${COMMAND_COLUMNS} from commands where id = $1 and status in ('pending', 'sent')`, [id]))[0];
    if (row && this.isConnected(row.host)) await this.write(row);
  }

  /** Write the command to the host's socket (if held here) and record the send; the first send is
   *  an event `cmd_sent` on the env. */
  private async write(c: CommandRow): Promise<boolean> {
    const ws = this.sockets.get(c.host);
    if (!ws || ws.readyState !== ws.OPEN) return false;
    ws.send(JSON.stringify({ type: 'command', id: c.id, kind: c.kind, payload: c.payload } satisfies ControlMessage));
    killPoint(`sent:${c.kind}`);
    // `returning`'s subquery reads the row as it was before this statement.
    await this.opts.db.query(
      `with sent as (
         update commands set sent_at = now(), status = case when status = 'pending' then 'sent' else status end
         where id = $1 returning (select status from commands where id = $1) as was, id, kind, deployment, host),
       ${firstSendEvent()}
       select 1`,
      [c.id],
    );
    return true;
  }

  /** Send now, or have the replica holding the host send it — unless it was sent within the resend window. */
  private async dispatch(row: CommandRow): Promise<void> {
    const recent = row.sent_at !== null && Date.now() - new Date(row.sent_at as string).getTime() < this.opts.resendAfterMs;
    if (recent) return;
    if (this.isConnected(row.host)) await this.write(row);
    else await this.opts.notifier.notify('denv_command', row.id);
  }

  /**
   * Send a command and wait for its result. Idempotent per (deployment, key): a phase re-run
   * after a restart finds the command it sent before — finished (its result is returned at once)
   * or still open (sent again only once the resend window has passed; the agent dedupes by id).
   * Woken by the result's notification, and every RECHECK_MS in case a notification was lost.
   * Throws AGENT_ERROR when the agent answered with an error, AGENT_UNREACHABLE when
   * `requireConnected` and the host is not connected. Bounded by `signal` (the phase timeout).
   */
  async call<K extends CommandKind>(hostId: string, kind: K, payload: Commands[K]['payload'], opts: CallOptions): Promise<Commands[K]['result']> {
    const { db, bus } = this.opts;
    if (opts.requireConnected && !(await this.isReachable(hostId))) throw new DenvError('AGENT_UNREACHABLE', `host ${hostId} is not connected`);
    const inserted = await db.query<CommandRow>(
      `insert into commands (id, host, deployment, key, kind, payload) values ($1, $2, $3, $4, $5, $6)
       on conflict (deployment, key) do nothing returning ${COMMAND_COLUMNS}`,
      [newId('command'), hostId, opts.deployment, opts.key, kind, JSON.stringify(payload)],
    );
    const first = inserted[0] ?? (await db.query<CommandRow>(`select ${COMMAND_COLUMNS} from commands where deployment = $1 and key = $2`, [opts.deployment, opts.key]))[0]!;
    const id = first.id;
    return new Promise((resolve, reject) => {
      let settled = false;
      /** Re-read the row (or take `known`, read just now): finished → settle; else, if `send`,
       *  (re)send it subject to the window. */
      const check = async (send: boolean, known?: CommandRow) => {
        if (settled) return;
        const row = known ?? (await db.query<CommandRow>(`select ${COMMAND_COLUMNS} from commands where id = $1`, [id]))[0]!;
        if (row.status === 'done') finish(() => resolve(row.result as Commands[K]['result']));
        else if (row.status === 'error') finish(() => reject(new DenvError(row.error?.code === 'RELEASED' ? 'CONFLICT' : 'AGENT_ERROR', row.error?.message ?? 'agent error')));
        else if (send) await this.dispatch(row);
      };
      const onCommand = (cid: string) => cid === id && void check(false, this.stored.get(cid)).catch(() => {});
      const onAbort = () => finish(() => reject(opts.signal!.reason ?? new DenvError('TIMEOUT', 'aborted')));
      const recheck = setInterval(() => void check(true).catch(() => {}), RECHECK_MS);
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearInterval(recheck);
        bus.off('command', onCommand);
        opts.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      bus.on('command', onCommand);
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort);
      // The row was read (inserted, or found) just above, so it is not read again: a result stored
      // after that read is announced on the bus in a later task, when onCommand listens already
      // (and the recheck covers a lost announcement).
      check(true, first).catch((err) => finish(() => reject(err)));
    });
  }
}
