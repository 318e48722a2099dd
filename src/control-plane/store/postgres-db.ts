import pg from 'pg';
import type { Db } from './db.js';

// int8 (bigserial event ids, counts) as JS numbers, as PGlite returns them.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

function wrapClient(client: pg.PoolClient): Db {
  return {
    dialect: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await client.query(sql, params as unknown[]);
      return res.rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    tx: (fn) => fn(wrapClient(client)),
    close: async () => {},
  };
}

/** A pool on a PostgreSQL server (`DATABASE_URL`). */
export async function openPostgres(url: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query('select 1');
  return {
    dialect: 'postgres',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await pool.query(sql, params as unknown[]);
      return res.rows as T[];
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await fn(wrapClient(client));
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
