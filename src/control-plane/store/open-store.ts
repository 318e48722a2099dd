import { join } from 'node:path';
import type { Db } from './db.js';
import { lockDataDir } from './data-dir-lock.js';
import { tightenTree } from './data-dir-modes.js';
import { migrate } from './migrations.js';
import { openPGlite } from './pglite-db.js';
import { openPostgres } from './postgres-db.js';

export interface OpenedStore {
  readonly db: Db;
  close(): Promise<void>;
}

/**
 * Embedded PGlite in `<dataDir>/pgdata` unless `databaseUrl` names a PostgreSQL server. The data
 * dir is locked either way (it also holds the admin token) and is 0700, `pgdata` owner-only
 * throughout (data-dir-modes.ts); the schema is migrated before return.
 */
export async function openStore(opts: { dataDir: string; databaseUrl?: string; log?: (line: string) => void }): Promise<OpenedStore> {
  const lock = lockDataDir(opts.dataDir);
  try {
    const pgdata = join(opts.dataDir, 'pgdata');
    const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl, opts.log) : await openPGlite(pgdata);
    await migrate(db);
    // After the first open (initdb) and the migrations, so the files they wrote are covered too.
    if (!opts.databaseUrl) tightenTree(pgdata);
    return {
      db,
      async close() {
        await db.close();
        // Files PGlite created while running (WAL segments, new relations) are tightened too.
        if (!opts.databaseUrl) tightenTree(pgdata);
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
