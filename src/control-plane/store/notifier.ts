/**
 * Cross-replica notifications (DESIGN §13). With a PostgreSQL server several control planes may
 * share one database; a command for a host whose socket another replica holds is routed through
 * LISTEN/NOTIFY: `denv_command` (send this command id, if you hold its host), `denv_result` (this
 * command id finished), `denv_host` (this host connected, disconnected or was removed). Each
 * notification arrives on every replica's bus, including the sender's. The embedded store has
 * one process, so there the bus alone carries them.
 */
import pg from 'pg';
import type { Bus } from '../bus.js';

export type Channel = 'denv_command' | 'denv_result' | 'denv_host';
const CHANNELS: readonly Channel[] = ['denv_command', 'denv_result', 'denv_host'];

export interface Notifier {
  notify(channel: Channel, payload: string): Promise<void>;
  close(): Promise<void>;
}

/** Embedded store: deliver straight to the local bus. */
export function localNotifier(bus: Bus): Notifier {
  return {
    async notify(channel, payload) {
      deliver(bus, channel, payload);
    },
    async close() {},
  };
}

function deliver(bus: Bus, channel: Channel, payload: string): void {
  if (channel === 'denv_command') bus.emit('route', payload);
  else if (channel === 'denv_result') bus.emit('command', payload);
  else bus.emit('host', payload);
}

/**
 * PostgreSQL server: one dedicated LISTEN connection. When it drops (a server restart), it is
 * opened again with backoff (0.2 s doubling to 5 s) until the server answers, and `bus` gets a
 * `notifier` event so work that may have been announced meanwhile is looked at again.
 */
export async function pgNotifier(url: string, bus: Bus, log: (line: string) => void): Promise<Notifier> {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => n.payload !== undefined && deliver(bus, n.channel as Channel, n.payload));
    let lost = false;
    const onLoss = (why: string) => {
      if (lost || closed) return;
      lost = true;
      log(`notifier: the LISTEN connection ended (${why}); reconnecting`);
      void c.end().catch(() => {});
      reconnect(200);
    };
    c.on('error', (err) => onLoss(err.message));
    c.on('end', () => onLoss('closed'));
    try {
      await c.connect();
      for (const ch of CHANNELS) await c.query(`listen ${ch}`);
    } catch (err) {
      lost = true;
      void c.end().catch(() => {});
      throw err;
    }
    client = c;
  };
  const reconnect = (delayMs: number): void => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => {
          log('notifier: listening again');
          bus.emit('kick');
        },
        () => reconnect(Math.min(delayMs * 2, 5000)),
      );
    }, delayMs);
    retry.unref();
  };
  await connect();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', (err) => log(`notifier: an idle connection ended: ${err.message}`));
  return {
    async notify(channel, payload) {
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
