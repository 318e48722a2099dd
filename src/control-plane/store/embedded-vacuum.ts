/**
 * The embedded store's stand-in for autovacuum. PGlite runs PostgreSQL in single-user mode, where
 * no autovacuum worker runs: the space of rows that retention deletes (metric samples, telemetry
 * request rows) and of rows' old versions is never marked for reuse, so each insert after a delete
 * goes at the end of the table's file, which grows without bound however few rows it keeps; old
 * rows are never frozen, which PostgreSQL needs before its transaction ids wrap around; and the
 * planner's statistics are never refreshed as tables grow.
 *
 * Each sweep asks PostgreSQL's statistics which tables autovacuum would take by its default rules —
 * vacuum: more dead rows than 50 + 20 % of the table, more rows inserted since the last vacuum than
 * 1000 + 20 %, or rows older than 200 million transactions; analyze: more rows changed since the
 * last analyze than 50 + 10 % — and runs one statement per table, in the background lane: the API's
 * reads go between them. A `vacuum` or `analyze` keeps the prepared statements
 * (pglite-statements.ts). A PostgreSQL server runs autovacuum itself: the control plane starts this
 * sweep on the embedded store alone.
 */
import type { Db } from './db.js';

/** The tables due, and for what (`analyze` is a reserved word, so the columns say `_due`). */
const DUE = `
  select name, vacuum_due, analyze_due from (
    select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as name,
           s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
             or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
             or age(c.relfrozenxid) > 200000000 as vacuum_due,
           s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze_due
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  ) t
  where vacuum_due or analyze_due
  order by name`;

/** The statement that does what is due for one table. */
export function maintenanceOf(t: { readonly name: string; readonly vacuum: boolean; readonly analyze: boolean }): string {
  return t.vacuum ? `vacuum${t.analyze ? ' (analyze)' : ''} ${t.name}` : `analyze ${t.name}`;
}

/** Vacuum and analyze what is due; returns the statements run. */
export async function sweepEmbeddedVacuum(db: Db): Promise<string[]> {
  const due = await db.query<{ name: string; vacuum_due: boolean; analyze_due: boolean }>(DUE);
  const run = due.map((t) => maintenanceOf({ name: t.name, vacuum: t.vacuum_due, analyze: t.analyze_due }));
  for (const sql of run) await db.exec(sql);
  return run;
}
