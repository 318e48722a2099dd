/**
 * `node pglite-init.js <dir>`: create an embedded database in `dir` (initdb), apply the
 * migrations, and exit. Run as a child process by pglite-db.ts, never imported: initdb peaks at
 * ~850 MiB, and only the end of a process gives all of it back (a worker thread's freed memory
 * stays in the process's malloc arenas, ~190 MiB of it measured), so the control plane that then
 * opens the database starts small. PGlite boots a full instance after initdb anyway; migrating
 * with it here keeps that work off the control plane's start.
 */
import { PGlite } from '@electric-sql/pglite';
import type { Db } from './db.js';
import { migrate } from './migrations.js';

/** The one connection of this process, as a Db (nothing else uses it while migrations run). */
function connection(pg: PGlite): Db {
  let depth = 0;
  const db: Db = {
    dialect: 'pglite',
    query: async <T>(sql: string, params: readonly unknown[] = []) => (await pg.query<T>(sql, params as unknown[])).rows,
    exec: async (sql) => void (await pg.exec(sql)),
    async tx(fn) {
      if (depth > 0) return fn(db); // a nested tx runs inside the outer one
      depth++;
      await pg.exec('begin');
      try {
        const out = await fn(db);
        await pg.exec('commit');
        return out;
      } catch (err) {
        await pg.exec('rollback').catch(() => {});
        throw err;
      } finally {
        depth--;
      }
    },
    servedFirst: () => db,
    close: () => pg.close(),
  };
  return db;
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-init <dir>');
const db = connection(await PGlite.create({ dataDir: dir }));
await migrate(db);
await db.close();
