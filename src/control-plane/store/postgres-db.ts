import pg from 'pg';
import { DenvError } from '../../contracts/errors.js';
import type { Db } from './db.js';

// int8 (bigserial event ids, counts) as JS numbers, as PGlite returns them.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

/**
 * One transaction's connection, its statements one at a time in the order they were made.
 * node-postgres sends a connection's statements one after another anyway (no pipelining), and
 * queues a query made while another runs, a use pg 8 deprecates ("client is already executing a
 * query"; removed in pg 9). Statements sent together on a transaction's handle (Promise.all, db.ts)
 * are chained here instead, and so are begin, commit and rollback: a rollback after a rejected
 * Promise.all still follows the statements of it that were in flight.
 */
function serialClient(client: pg.PoolClient): Db {
  let last: Promise<unknown> = Promise.resolve();
  const run = (sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult> => {
    const next = last.then(() => client.query(sql, params as unknown[]));
    last = next.catch(() => {});
    return next;
  };
  const db: Db = {
    dialect: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return (await run(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      await run(sql);
    },
    tx: (fn) => fn(db),
    servedFirst: () => db,
    close: async () => {},
  };
  return db;
}

/**
 * Errors that mean the server is gone for now (restarting, shut down, unreachable) rather than a
 * bad query: SQLSTATE class 57 (operator intervention: 57P01 admin shutdown …) and 08
 * (connection exception), and the socket errors of a connection that cannot be made or was cut.
 */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(57P0[1-3]|08...)$/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN'].includes(code)) return true;
  return /Connection terminated|terminating connection|Client has encountered a connection error|the database system is (starting up|shutting down)/.test(String(e?.message ?? ''));
}

/** A connection loss becomes DATABASE_UNAVAILABLE (503, "retry"); anything else passes through. */
function unavailable(err: unknown): unknown {
  return isConnectionLoss(err) ? new DenvError('DATABASE_UNAVAILABLE', `the database server cannot be reached (${(err as Error).message}); retry shortly`) : err;
}

/**
 * A pool on a PostgreSQL server (`DATABASE_URL`). It survives server restarts: an idle
 * connection the server ends is reported on the pool's `error` event (logged here, never an
 * unhandled error), and the next query opens a fresh one; a query that runs into the outage fails
 * with DATABASE_UNAVAILABLE (503) and nothing half-written (transactions roll back server-side).
 */
export async function openPostgres(url: string, log: (line: string) => void = () => {}): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', (err) => log(`database: an idle connection ended: ${err.message}`));
  await pool.query('select 1');
  const db: Db = {
    dialect: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await pool.query(sql, params as unknown[]).catch((err: unknown) => {
        throw unavailable(err);
      });
      return res.rows as T[];
    },
    async exec(sql: string) {
      await pool.query(sql).catch((err: unknown) => {
        throw unavailable(err);
      });
    },
    async tx(fn) {
      const client = await pool.connect().catch((err: unknown) => {
        throw unavailable(err);
      });
      // A checked-out client is off the pool's `error` listener: a server restart mid-transaction
      // would emit an unhandled 'error' and end the process. Caught here; the query in flight fails.
      let lost: Error | undefined;
      const onError = (err: Error) => {
        lost = err;
        log(`database: a connection in a transaction ended: ${err.message}`);
      };
      client.on('error', onError);
      const serial = serialClient(client);
      try {
        await serial.exec('begin');
        const out = await fn(serial);
        await serial.exec('commit');
        return out;
      } catch (err) {
        if (!lost) await serial.exec('rollback').catch(() => {});
        throw unavailable(err);
      } finally {
        client.off('error', onError);
        // A connection the server ended is destroyed (release(err)), not returned to the pool.
        client.release(lost);
      }
    },
    servedFirst: () => db,
    close: () => pool.end(),
  };
  return db;
}
