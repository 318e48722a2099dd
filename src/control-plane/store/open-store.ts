import { join } from 'node:path';
import type { Db } from './db.js';
import { lockDataDir } from './data-dir-lock.js';
import { migrate } from './migrations.js';
import { openPGlite } from './pglite-db.js';
import { openPostgres } from './postgres-db.js';

export interface OpenedStore {
  readonly db: Db;
  close(): Promise<void>;
}

/**
 * Embedded PGlite in `<dataDir>/pgdata` unless `databaseUrl` names a PostgreSQL server. The data
 * dir is locked either way (it also holds the admin token); the schema is migrated before return.
 */
export async function openStore(opts: { dataDir: string; databaseUrl?: string }): Promise<OpenedStore> {
  const lock = lockDataDir(opts.dataDir);
  try {
    const db = opts.databaseUrl ? await openPostgres(opts.databaseUrl) : await openPGlite(join(opts.dataDir, 'pgdata'));
    await migrate(db);
    return {
      db,
      async close() {
        await db.close();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
