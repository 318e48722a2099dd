/** The embedded store vacuums what autovacuum would (store/embedded-vacuum.ts): PGlite runs
 *  PostgreSQL single-user, without autovacuum, so a table whose rows are deleted as new ones arrive
 *  (retention) grew by all it took in, each round. Real PGlite through the store's worker. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPGlite } from '../src/control-plane/store/pglite-db.js';
import { maintenanceOf, sweepEmbeddedVacuum } from '../src/control-plane/store/embedded-vacuum.js';
import type { Db } from '../src/control-plane/store/db.js';
import { freshDataDir } from './helpers/stores.js';

describe('maintenanceOf', () => {
  it('vacuums, analyzes or both, as is due', () => {
    expect(maintenanceOf({ name: 'public.a', vacuum: true, analyze: false })).toBe('vacuum public.a');
    expect(maintenanceOf({ name: 'public.a', vacuum: true, analyze: true })).toBe('vacuum (analyze) public.a');
    expect(maintenanceOf({ name: 'public.a', vacuum: false, analyze: true })).toBe('analyze public.a');
  });
});

describe('vacuum on the embedded store', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPGlite(freshDataDir());
    await db.exec('create table samples (id bigserial primary key, env text not null, data jsonb not null); create table quiet (id int primary key)');
    await db.query('insert into quiet values (1)');
  });
  afterAll(async () => {
    await db?.close();
  });

  const size = async (table: string) => (await db.query<{ b: number }>('select pg_total_relation_size($1)::int as b', [table]))[0]!.b;
  /** One round of retention: 10,000 new rows in, the older ones out (10,000 stay). */
  const round = async () => {
    for (let i = 0; i < 10; i++) {
      await db.query(`insert into samples (env, data) select 'env_' || g, '{"cpu": 1.5, "mem": 12345678}' from generate_series(1, 1000) g`);
    }
    await db.query('delete from samples where id <= (select max(id) - 10000 from samples)');
    // PostgreSQL publishes a session's table statistics at most once a second; the sweep (once a
    // minute) reads them late by that much, this test at once.
    await db.query('select pg_stat_force_next_flush()');
  };

  it('keeps a table under insert-and-delete churn at a bounded size, vacuuming and analyzing only the tables due, without forgetting prepared statements', async () => {
    await round();
    await round();
    expect(await sweepEmbeddedVacuum(db)).toEqual(['vacuum (analyze) public.samples']);
    const settled = await size('samples');
    const byId = 'select env from samples where id = $1';
    await db.query(byId, [1]);
    const preparedAs = async () => (await db.query<{ name: string }>('select name from pg_prepared_statements where statement = $1', [byId])).map((p) => p.name);
    const before = await preparedAs();
    expect(before).toHaveLength(1);
    for (let i = 0; i < 4; i++) {
      await round();
      await sweepEmbeddedVacuum(db);
    }
    // Without vacuuming, each round adds a round's rows at the end of the file: 4 rounds, ~3× the size.
    expect(await size('samples')).toBeLessThanOrEqual(settled * 1.3);
    const counts = "select vacuum_count::int as vacuumed, analyze_count::int as analyzed from pg_stat_user_tables where relname = $1";
    expect(await db.query(counts, ['samples'])).toEqual([{ vacuumed: 5, analyzed: 5 }]);
    expect(await db.query(counts, ['quiet'])).toEqual([{ vacuumed: 0, analyzed: 0 }]);
    // The planner knows the table's size.
    expect(await db.query("select reltuples::int as n from pg_class where relname = 'samples'")).toEqual([{ n: 10_000 }]);
    // The vacuums kept what was prepared: the same statement, not prepared again under a new name.
    await db.query(byId, [2]);
    expect(await preparedAs()).toEqual(before);
  });
});
