/**
 * The two stores every store-facing test runs against: embedded PGlite (a copy of the template
 * made in global-setup) and a fresh database on the PostgreSQL server named by
 * DENV_TEST_DATABASE_URL (.ci/run starts one). A missing server fails the test, never skips it.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { openStore, type OpenedStore } from '../../src/control-plane/store/open-store.js';
import type { Db } from '../../src/control-plane/store/db.js';

export const STORES = ['pglite', 'postgres'] as const;
export type StoreKind = (typeof STORES)[number];

/** A new dir under the run's temp root, traversable (0711) so services running as their own users reach their files below it. */
export function freshDataDir(prefix = 'denv-test-'): string {
  const dir = mkdtempSync(join(inject('testDataRoot'), prefix));
  chmodSync(dir, 0o711);
  return dir;
}

/** Seed `dataDir/pgdata` from the migrated template so start-up skips initdb. */
export function seedPGlite(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  cpSync(inject('pgliteTemplate'), join(dataDir, 'pgdata'), { recursive: true });
}

/** A new empty database on the test server; returns its URL. */
export async function freshPostgresDatabase(): Promise<string> {
  const admin = process.env.DENV_TEST_DATABASE_URL;
  if (!admin) throw new Error('DENV_TEST_DATABASE_URL is not set: the PostgreSQL store tests need a server (.ci/run starts one)');
  const name = `denv_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Options for startControlPlane giving a fresh store of `kind` in `dataDir`. */
export async function storeOptions(kind: StoreKind, dataDir: string): Promise<{ dataDir: string; databaseUrl?: string }> {
  if (kind === 'pglite') {
    seedPGlite(dataDir);
    return { dataDir };
  }
  return { dataDir, databaseUrl: await freshPostgresDatabase() };
}

/** An embedded store for a test file's in-process tests, holding one team and one project: opened
 *  before the file's tests (its `db` is set then), closed after them. */
export function embeddedProjectStore(team: string, project: string, projectName: string): { db: Db } {
  const holder = {} as { db: Db };
  let opened: OpenedStore | undefined;
  beforeAll(async () => {
    opened = await openStore(await storeOptions('pglite', freshDataDir()));
    holder.db = opened.db;
    await holder.db.query('insert into teams (id, name) values ($1, $1)', [team]);
    await holder.db.query('insert into projects (id, team, name) values ($1, $2, $3)', [project, team, projectName]);
  });
  afterAll(async () => {
    await opened?.close();
  });
  return holder;
}
