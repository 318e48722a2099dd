/**
 * The embedded store's stand-in for autovacuum. PGlite runs PostgreSQL in single-user mode, where
 * no autovacuum worker runs: the space of rows that retention deletes (metric samples, telemetry
 * request rows) and of rows' old versions is never marked for reuse, so each insert after a delete
 * goes at the end of the table's file, which grows without bound however few rows it keeps; and old
 * rows are never frozen, which PostgreSQL needs before its transaction ids wrap around.
 *
 * Each sweep asks PostgreSQL's statistics which tables autovacuum would vacuum by its default rule
 * (more dead rows than 50 + 20 % of the table, more rows inserted since the last vacuum than 1000 +
 * 20 %, or rows older than 200 million transactions) and vacuums them, one statement each, in the
 * background lane: the API's reads go between them. A `vacuum` keeps the prepared statements
 * (pglite-statements.ts). A PostgreSQL server runs autovacuum itself; this is for PGlite alone.
 */
import type { Db } from './db.js';

/** The tables autovacuum's default rule picks, as quoted `schema.table` names. */
const DUE = `
  select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as name
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
     or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
     or age(c.relfrozenxid) > 200000000
  order by s.relname`;

/** Vacuum what is due; returns the tables vacuumed. */
export async function sweepEmbeddedVacuum(db: Db): Promise<string[]> {
  if (db.dialect !== 'pglite') return [];
  const due = await db.query<{ name: string }>(DUE);
  for (const { name } of due) await db.exec(`vacuum ${name}`);
  return due.map((t) => t.name);
}
