/**
 * The embedded database's own thread (started by pglite-db.ts, never imported elsewhere). PGlite
 * runs each statement synchronously in WebAssembly and hands results back through promise
 * continuations only, so on the main thread a burst of statements (30 deploys advancing at once)
 * kept HTTP requests and agent frames from being read for hundreds of milliseconds. Here it runs
 * beside the event loop: the main thread sends one message per statement and reads the answer as
 * a message of its own, so between any two statements it serves its sockets.
 *
 * Requests are handled one at a time in arrival order (PGlite is one connection). Transactions
 * are plain `begin` / `commit` / `rollback` statements: the main side keeps other statements away
 * while one is open. Queries run as prepared statements (pglite-statements.ts says why). The
 * database exists already (pglite-init.ts creates it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { keepsPrepared, PreparedStatements } from './pglite-statements.js';

export interface PGliteWorkerData {
  readonly dataDir: string;
  /** Extra `-c name=value` settings for the serving instance (pglite-db.ts says why). */
  readonly settings: readonly string[];
}

export type PGliteRequest =
  | { readonly id: number; readonly op: 'query'; readonly sql: string; readonly params: readonly unknown[] }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string }
  | { readonly id: number; readonly op: 'close' };

/** A PostgreSQL error as plain data: its message and string fields (`code` = SQLSTATE, `constraint`, `detail` …). */
export interface SerializedError {
  readonly message: string;
  readonly fields: Readonly<Record<string, string | number>>;
}

/** Answer to request `id`; id 0 answers the opening of the database. */
export type PGliteReply = { readonly id: number; readonly rows: unknown[] } | { readonly id: number; readonly error: SerializedError };

function serializeError(err: unknown): SerializedError {
  const fields: Record<string, string | number> = {};
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) if (typeof v === 'string' || typeof v === 'number') fields[k] = v;
  }
  return { message: err instanceof Error ? err.message : String(err), fields };
}

const port = parentPort!;
const opts = workerData as PGliteWorkerData;
const reply = (msg: PGliteReply) => {
  try {
    port.postMessage(msg);
  } catch (err) {
    // A row the structured clone cannot carry: the statement still answers, as an error.
    port.postMessage({ id: msg.id, error: serializeError(err) } satisfies PGliteReply);
  }
};

let db: PGlite;
let statements: PreparedStatements;
try {
  const settings = opts.settings.flatMap((s) => ['-c', s]);
  db = await PGlite.create({ dataDir: opts.dataDir, startParams: [...PGlite.defaultStartParams, ...settings] });
  statements = new PreparedStatements(db);
  reply({ id: 0, rows: [] });
} catch (err) {
  reply({ id: 0, error: serializeError(err) });
  port.close();
  throw err;
}

async function handle(req: PGliteRequest): Promise<void> {
  try {
    if (req.op === 'query') {
      reply({ id: req.id, rows: await statements.query(req.sql, req.params) });
    } else if (req.op === 'exec') {
      if (!keepsPrepared(req.sql)) statements.forgetAll();
      await db.exec(req.sql);
      reply({ id: req.id, rows: [] });
    } else {
      await db.close();
      reply({ id: req.id, rows: [] });
      port.close();
    }
  } catch (err) {
    reply({ id: req.id, error: serializeError(err) });
  }
}

let chain = Promise.resolve();
port.on('message', (req: PGliteRequest) => {
  chain = chain.then(() => handle(req));
});
