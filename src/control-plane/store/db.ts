/**
 * The database port: PostgreSQL is the only dialect, reached either through embedded PGlite or a
 * PostgreSQL server (`pg`). Everything above this file speaks plain parameterised SQL through it.
 */
export interface Db {
  readonly dialect: 'pglite' | 'postgres';
  /** Run one statement with `$1…` parameters; returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Run a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  /** Run `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. The
   *  handle `fn` gets has one connection: statements sent on it without awaiting each other run in
   *  the order sent, so independent ones can go together (Promise.all): on the embedded store in
   *  one round trip to its thread; a PostgreSQL server's connection takes them one at a time. */
  tx<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * The same database, for work a person is waiting on (the API's): where the store has one
   * connection (the embedded one), its statements go ahead of background work still waiting
   * (pglite-db.ts); a PostgreSQL server has a pool and returns the handle itself.
   */
  servedFirst(): Db;
  close(): Promise<void>;
}

export async function one<T>(db: Db, sql: string, params?: readonly unknown[]): Promise<T | undefined> {
  const rows = await db.query<T>(sql, params);
  return rows[0];
}
