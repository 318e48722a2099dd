/**
 * The agents' side of `/agent/ws`. An agent says `hello` with an enrollment key (first time; it
 * gets a host credential back, stored here only as a hash) or with its credential. After `welcome`
 * it heartbeats and answers commands. Commands live in the `commands` table: sending one is
 * "persist, then write to the socket if connected"; every open command of a host is re-sent when
 * it (re)connects, and the agent applies a command id at most once.
 */
import type { WebSocket } from 'ws';
import { newId, newSecret } from '../../contracts/ids.js';
import { DenvError, messageOf } from '../../contracts/errors.js';
import { agentMessage, PROTOCOL_VERSION, type AgentMessage, type Commands, type CommandKind, type ControlMessage } from '../../contracts/protocol.js';
import { hashSecret } from '../auth/secrets.js';
import type { Db } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import type { Bus } from '../bus.js';

export interface GatewayOptions {
  readonly db: Db;
  readonly bus: Bus;
  readonly heartbeatMs: number;
  readonly log: (line: string) => void;
}

interface CommandRow {
  id: string; host: string; kind: CommandKind; payload: unknown; status: string; result: unknown; error: { code: string; message: string } | null;
}

export interface CallOptions {
  /** The deployment this command belongs to, and a key unique within it: together they make the
   *  command idempotent across control-plane restarts (the same phase re-run finds the same id). */
  readonly deployment: string;
  readonly key: string;
  readonly signal?: AbortSignal;
  /** Fail at once with AGENT_UNREACHABLE instead of waiting when the host is not connected. */
  readonly requireConnected?: boolean;
}

export class AgentGateway {
  private readonly sockets = new Map<string, WebSocket>();
  constructor(private readonly opts: GatewayOptions) {}

  isConnected(hostId: string): boolean {
    return this.sockets.has(hostId);
  }

  /** Resolve true once `hostId` is connected, false after `ms` (or when `signal` aborts). */
  waitConnected(hostId: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.isConnected(hostId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.opts.bus.off('host', onHost);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onHost = (id: string) => id === hostId && this.isConnected(hostId) && done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.opts.bus.on('host', onHost);
      signal?.addEventListener('abort', onAbort);
    });
  }

  connectedHosts(): string[] {
    return [...this.sockets.keys()];
  }

  /** Close every agent socket (shutdown). */
  closeAll(): void {
    for (const ws of this.sockets.values()) ws.close(1001, 'control plane shutting down');
    this.sockets.clear();
  }

  /** Serve one agent connection until it closes. */
  accept(ws: WebSocket): void {
    let hostId: string | null = null;
    const send = (msg: ControlMessage) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(msg));
    ws.on('message', (raw) => {
      let msg: AgentMessage;
      try {
        msg = agentMessage.parse(JSON.parse(String(raw)));
      } catch {
        this.opts.log('gateway: ignored a malformed frame from an agent');
        return;
      }
      void (async () => {
        if (msg.type === 'hello') {
          try {
            const welcome = await this.hello(msg);
            hostId = welcome.host_id;
            const previous = this.sockets.get(hostId);
            if (previous && previous !== ws) previous.close(4000, 'replaced by a newer connection');
            this.sockets.set(hostId, ws);
            send(welcome);
            this.opts.bus.emit('host', hostId);
            await this.resendOpen(hostId);
          } catch (err) {
            const e = err instanceof DenvError ? err : new DenvError('INTERNAL', messageOf(err));
            send({ type: 'refused', code: e.code, message: e.message });
            ws.close(4001, e.code);
          }
          return;
        }
        if (!hostId) return; // nothing before hello
        if (msg.type === 'heartbeat') await this.heartbeat(hostId);
        else if (msg.type === 'result') await this.result(hostId, msg);
      })().catch((err) => this.opts.log(`gateway: ${messageOf(err)}`));
    });
    ws.on('close', () => {
      if (hostId && this.sockets.get(hostId) === ws) {
        this.sockets.delete(hostId);
        this.opts.bus.emit('host', hostId);
      }
    });
    ws.on('error', () => {});
  }

  private async hello(msg: Extract<AgentMessage, { type: 'hello' }>): Promise<ControlMessage & { type: 'welcome' }> {
    const { db } = this.opts;
    if (msg.protocol !== PROTOCOL_VERSION) throw new DenvError('BAD_REQUEST', `protocol ${msg.protocol} is not supported (control plane speaks ${PROTOCOL_VERSION})`);
    if (msg.host_id && msg.credential) {
      const rows = await db.query<{ id: string; status: string }>('select id, status from hosts where id = $1 and credential_hash = $2', [msg.host_id, hashSecret(msg.credential)]);
      const host = rows[0];
      if (!host || host.status === 'removed') throw new DenvError('UNAUTHORIZED', 'unknown host or revoked credential');
      await this.heartbeat(host.id, msg.facts);
      return { type: 'welcome', host_id: host.id, heartbeat_ms: this.opts.heartbeatMs };
    }
    if (!msg.enrollment_key) throw new DenvError('UNAUTHORIZED', 'hello needs an enrollment key or a host credential');
    return db.tx(async (tx) => {
      const keys = await tx.query<{ id: string; team: string; single_use: boolean; used_at: unknown; expired: boolean }>(
        'select id, team, single_use, used_at, expires_at < now() as expired from enrollment_keys where hash = $1 for update',
        [hashSecret(msg.enrollment_key!)],
      );
      const key = keys[0];
      if (!key) throw new DenvError('UNAUTHORIZED', 'unknown enrollment key');
      if (key.expired) throw new DenvError('UNAUTHORIZED', 'enrollment key expired');
      if (key.single_use && key.used_at) throw new DenvError('UNAUTHORIZED', 'enrollment key already used');
      const id = newId('host');
      const credential = newSecret('dhc');
      await tx.query(
        "insert into hosts (id, team, name, kind, status, facts, credential_hash, last_heartbeat_at) values ($1, $2, $3, 'sidecar', 'connected', $4, $5, now())",
        [id, key.team, msg.name, JSON.stringify(msg.facts), hashSecret(credential)],
      );
      await tx.query('update enrollment_keys set used_at = now() where id = $1', [key.id]);
      await appendEvent(tx, { team: key.team, subject: `host:${id}`, type: 'host.enrolled', data: { name: msg.name } });
      return { type: 'welcome' as const, host_id: id, credential, heartbeat_ms: this.opts.heartbeatMs };
    });
  }

  /** A heartbeat (or a hello) makes the host `connected`; a change of status is an event. */
  private async heartbeat(hostId: string, facts?: unknown): Promise<void> {
    const rows = await this.opts.db.query<{ team: string; previous: string }>(
      `with prev as (select status from hosts where id = $1)
       update hosts set last_heartbeat_at = now(), status = 'connected', facts = coalesce($2, facts)
       where id = $1 and status <> 'removed' returning team, (select status from prev) as previous`,
      [hostId, facts === undefined ? null : JSON.stringify(facts)],
    );
    const row = rows[0];
    if (row && row.previous !== 'connected') {
      await appendEvent(this.opts.db, { team: row.team, subject: `host:${hostId}`, type: 'host.status', data: { status: 'connected' } });
    }
  }

  private async result(hostId: string, msg: Extract<AgentMessage, { type: 'result' }>): Promise<void> {
    const rows = await this.opts.db.query<{ id: string }>(
      "update commands set status = $3, result = $4, error = $5, finished_at = now() where id = $1 and host = $2 and status in ('pending', 'sent') returning id",
      [msg.id, hostId, msg.ok ? 'done' : 'error', JSON.stringify(msg.result ?? null), msg.ok ? null : JSON.stringify(msg.error ?? { code: 'AGENT_ERROR', message: 'unknown error' })],
    );
    if (rows.length > 0) this.opts.bus.emit('command', msg.id);
  }

  private async resendOpen(hostId: string): Promise<void> {
    const open = await this.opts.db.query<CommandRow>("select id, host, kind, payload from commands where host = $1 and status in ('pending', 'sent') order by created_at", [hostId]);
    for (const c of open) this.write(c);
  }

  private write(c: Pick<CommandRow, 'id' | 'host' | 'kind' | 'payload'>): boolean {
    const ws = this.sockets.get(c.host);
    if (!ws || ws.readyState !== ws.OPEN) return false;
    ws.send(JSON.stringify({ type: 'command', id: c.id, kind: c.kind, payload: c.payload } satisfies ControlMessage));
    void this.opts.db.query("update commands set status = 'sent', sent_at = now() where id = $1 and status = 'pending'", [c.id]).catch(() => {});
    return true;
  }

  /**
   * Send a command and wait for its result. Idempotent per (deployment, key): a phase re-run
   * after a restart finds the command it sent before — finished (its result is returned at once)
   * or still open (re-sent; the agent dedupes by id). Throws AGENT_ERROR when the agent answered
   * with an error, AGENT_UNREACHABLE when `requireConnected` and the host is not connected.
   * Bounded by `signal` (the phase timeout).
   */
  async call<K extends CommandKind>(hostId: string, kind: K, payload: Commands[K]['payload'], opts: CallOptions): Promise<Commands[K]['result']> {
    const { db, bus } = this.opts;
    if (opts.requireConnected && !this.isConnected(hostId)) throw new DenvError('AGENT_UNREACHABLE', `host ${hostId} is not connected`);
    const inserted = await db.query<CommandRow>(
      `insert into commands (id, host, deployment, key, kind, payload) values ($1, $2, $3, $4, $5, $6)
       on conflict (deployment, key) do nothing returning id, host, kind, payload, status, result, error`,
      [newId('command'), hostId, opts.deployment, opts.key, kind, JSON.stringify(payload)],
    );
    let row = inserted[0] ?? (await db.query<CommandRow>('select id, host, kind, payload, status, result, error from commands where deployment = $1 and key = $2', [opts.deployment, opts.key]))[0]!;
    const id = row.id;
    return new Promise((resolve, reject) => {
      let settled = false;
      const check = async () => {
        if (settled) return;
        row = (await db.query<CommandRow>('select id, host, kind, payload, status, result, error from commands where id = $1', [id]))[0]!;
        if (row.status === 'done') finish(() => resolve(row.result as Commands[K]['result']));
        else if (row.status === 'error') finish(() => reject(new DenvError('AGENT_ERROR', row.error?.message ?? 'agent error')));
      };
      const onCommand = (cid: string) => cid === id && void check().catch(() => {});
      const onHost = (hid: string) => hid === hostId && this.isConnected(hostId) && void check().catch(() => {});
      const onAbort = () => finish(() => reject(opts.signal!.reason ?? new DenvError('TIMEOUT', 'aborted')));
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        bus.off('command', onCommand);
        bus.off('host', onHost);
        opts.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      bus.on('command', onCommand);
      bus.on('host', onHost); // a reconnecting host gets open commands re-sent by accept()
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort);
      void check()
        .then(() => {
          if (!settled) this.write(row);
        })
        .catch((err) => finish(() => reject(err)));
    });
  }
}
