import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db } from './db.js';

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

function wrap(q: Queryable, root: PGlite): Db {
  return {
    dialect: 'pglite',
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query<T>(sql, params as unknown[]);
      return res.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
    // PGlite is a single connection: a nested tx just runs inside the outer one.
    tx: (fn) => ('rollback' in q ? fn(wrap(q, root)) : root.transaction((t) => fn(wrap(t, root)))),
    close: () => root.close(),
  };
}

/** Open (and on first use initialise) an embedded PostgreSQL in `dir`. The caller must hold the data-dir lock. */
export async function openPGlite(dir: string): Promise<Db> {
  const pg = await PGlite.create({ dataDir: dir });
  return wrap(pg, pg);
}
