import { cpSync, existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { DenvError } from '../../contracts/errors.js';
import { spawnModuleWorker } from '../../lib/module-worker.js';
import { holdsDatabase, initialiseDatabase, PGDATA_TEMPLATE } from './pglite-template.js';
import type { Db } from './db.js';
import type { PGliteReply, PGliteRequest, PGliteWorkerData, SerializedError } from './pglite-worker.js';

/**
 * Settings of the serving instance, given as `-c` flags (nothing is written to postgresql.conf).
 * PostgreSQL's default shared_buffers (128 MB) is allocated and touched when PGlite starts: ~140 MiB
 * of RSS measured. denv's database is tens of MB and its files stay in the OS page cache, so a
 * page missing from 16 MB of buffers is a cheap read.
 */
const SETTINGS = ['shared_buffers=16MB'];

type Request = PGliteRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** A PostgreSQL error thrown in the worker, rebuilt with its fields (`code` is what callers check). */
function toError(e: SerializedError): Error {
  return Object.assign(new Error(e.message), e.fields);
}

function spawnWorker(data: PGliteWorkerData): Worker {
  return spawnModuleWorker(import.meta.url, 'pglite-worker', { workerData: data });
}


/** One worker: requests numbered, answers matched; a dead worker fails every open and later request. */
class PGliteThread {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();
  private failure: Error | null = null;
  /** Set while someone waits for the worker to exit: it must keep the process alive till then. */
  private awaitingExit = false;
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (msg: PGliteReply) => {
      const waiter = this.pending.get(msg.id);
      if (!waiter) return;
      this.pending.delete(msg.id);
      if (this.pending.size === 0 && !this.awaitingExit) worker.unref();
      if ('error' in msg) waiter.reject(toError(msg.error));
      else waiter.resolve(msg.rows);
    });
    // DATABASE_UNAVAILABLE (503): an error, not a failure — a phase that meets it is run again
    // after the control plane restarts.
    worker.on('error', (err) => this.fail(new DenvError('DATABASE_UNAVAILABLE', `the embedded database stopped: ${err.message}; restart the control plane`)));
    worker.once('exit', (code) =>
      this.fail(new DenvError('DATABASE_UNAVAILABLE', this.awaitingExit ? 'the embedded database is closed' : `the embedded database stopped (its thread exited with code ${code})`)),
    );
  }

  /** Start a worker and wait until it has opened the database. */
  static start(data: PGliteWorkerData): Promise<PGliteThread> {
    const thread = new PGliteThread(spawnWorker(data));
    return new Promise((resolve, reject) => {
      thread.pending.set(0, { resolve: () => resolve(thread), reject });
      thread.exited.then(() => reject(thread.failure));
    });
  }

  /** Resolves when the worker has exited (it does after `close`); later requests are refused as closed. */
  exit(): Promise<void> {
    this.awaitingExit = true;
    this.worker.ref();
    return this.exited;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.pending.values()) w.reject(this.failure);
    this.pending.clear();
  }

  /** Posted at once; the worker answers in order. The worker keeps the process alive only while it owes answers. */
  request(req: Request): Promise<unknown[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id } as PGliteRequest);
    });
  }
}

/** Statements posted to the worker and not answered yet, at most: enough to keep it busy while an
 *  answer travels back, few enough that a statement served first waits for little. */
const PIPELINE_DEPTH = 2;

/** Once the oldest background work has waited this long, it and the API's work take turns (the
 *  default of openPGlite's `restMaxWaitMs`): a client polling the API hard (20 watchers every
 *  50 ms) must not stop every deployment. */
export const REST_MAX_WAIT_MS = 100;

interface Waiter {
  readonly exclusive: boolean;
  /** When it was queued (performance.now()). */
  readonly since: number;
  start(): void;
}

/**
 * Statements and transactions over the worker's one connection. What comes through a
 * `servedFirst()` handle (the API's) goes ahead of the rest, so a burst of background work (30
 * deploys advancing at once, 50 agents saying hello) does not queue ahead of a person reading the
 * API; among the API's own work, single statements go ahead of transactions waiting to begin, so
 * a read is not queued behind 30 deploy requests' transactions. Background work keeps its arrival
 * order. A transaction has the connection to itself from `begin` to `commit`/`rollback` and is
 * never interrupted; what arrives meanwhile waits behind it, as PGlite's own connection made it
 * wait on the main thread. Statements outside transactions are pipelined, PIPELINE_DEPTH at a time.
 * Background work is never starved: once the oldest of it has waited REST_MAX_WAIT_MS, it and the
 * API's work take turns.
 */
class Gate {
  private exclusive = false;
  private posted = 0;
  /** The last work started was background work served for its age (the API goes next). */
  private agedWentLast = false;
  /** Served first: statements, then transactions; then everything else in arrival order. */
  private readonly firstStatements: Waiter[] = [];
  private readonly firstTransactions: Waiter[] = [];
  private readonly rest: Waiter[] = [];

  constructor(
    private readonly thread: PGliteThread,
    private readonly restMaxWaitMs: number,
  ) {}

  statement(req: Request, first: boolean): Promise<unknown[]> {
    return new Promise((resolve, reject) =>
      this.enqueue(first, {
        exclusive: false,
        since: performance.now(),
        start: () => {
          this.posted++;
          void this.thread
            .request(req)
            .then(resolve, reject)
            .finally(() => {
              this.posted--;
              this.drain();
            });
        },
      }),
    );
  }

  /** Run `fn` with the connection to itself. */
  async alone<T>(fn: () => Promise<T>, first: boolean): Promise<T> {
    await new Promise<void>((start) => this.enqueue(first, { exclusive: true, since: performance.now(), start }));
    try {
      return await fn();
    } finally {
      this.exclusive = false;
      this.drain();
    }
  }

  private enqueue(first: boolean, w: Waiter): void {
    (!first ? this.rest : w.exclusive ? this.firstTransactions : this.firstStatements).push(w);
    this.drain();
  }

  private drain(): void {
    while (!this.exclusive) {
      const first = this.firstStatements.length > 0 ? this.firstStatements : this.firstTransactions.length > 0 ? this.firstTransactions : null;
      const aged = this.rest.length > 0 && performance.now() - this.rest[0]!.since >= this.restMaxWaitMs;
      // Aged background work and the API take turns: neither waits behind a backlog of the other.
      const queue = first && (!aged || this.agedWentLast) ? first : this.rest;
      const next = queue[0];
      if (!next || (!next.exclusive && this.posted >= PIPELINE_DEPTH)) return;
      queue.shift();
      this.agedWentLast = queue === this.rest && aged;
      // A transaction's `begin` may follow statements still in the worker: it runs after them.
      if (next.exclusive) this.exclusive = true;
      next.start();
    }
  }
}

function txHandle(thread: PGliteThread, close: () => Promise<void>): { db: Db; end(): void } {
  let open = true;
  const send = (req: Request) => (open ? thread.request(req) : Promise.reject(new Error('the transaction has already finished')));
  const db: Db = {
    dialect: 'pglite',
    query: async <T>(sql: string, params: readonly unknown[] = []) => (await send({ op: 'query', sql, params })) as T[],
    exec: async (sql) => void (await send({ op: 'exec', sql })),
    // One connection: a nested tx runs inside the outer one.
    tx: (fn) => fn(db),
    servedFirst: () => db,
    close,
  };
  return { db, end: () => (open = false) };
}

/** A handle on the gate: its statements and transactions go in the `first` lane or the other. */
function laneHandle(thread: PGliteThread, gate: Gate, first: boolean, close: () => Promise<void>, served: () => Db): Db {
  return {
    dialect: 'pglite',
    query: async <T>(sql: string, params: readonly unknown[] = []) => (await gate.statement({ op: 'query', sql, params }, first)) as T[],
    exec: async (sql) => void (await gate.statement({ op: 'exec', sql }, first)),
    tx: async (fn) => {
      const ending = await gate.alone(async () => {
        const tx = txHandle(thread, close);
        // `begin` and the end are posted, not awaited: the worker answers in order, so the
        // transaction's first statement runs after `begin`, and whatever the gate lets through
        // next runs after `commit`/`rollback`. The connection is held for the statements alone,
        // not for two more round trips to the worker.
        const began = thread.request({ op: 'exec', sql: 'begin' });
        began.catch(() => {});
        try {
          const out = await fn(tx.db);
          await began;
          tx.end();
          return { out, ended: thread.request({ op: 'exec', sql: 'commit' }) };
        } catch (err) {
          tx.end();
          // After a failed statement PostgreSQL has aborted the transaction; the rollback ends it.
          return { err, ended: thread.request({ op: 'exec', sql: 'rollback' }) };
        }
      }, first);
      if ('err' in ending) {
        await ending.ended.catch(() => {});
        throw ending.err;
      }
      // A failed commit (PostgreSQL has then ended the transaction itself) rejects here.
      await ending.ended;
      return ending.out;
    },
    servedFirst: served,
    close,
  };
}

/**
 * Open (and on first use initialise) an embedded PostgreSQL in `dir`, run in a worker thread
 * (pglite-worker.ts says why). A missing database is a copy of `template` (the one made at build
 * time, pglite-template.ts) or, without one, made by initdb and migrated in a short-lived process;
 * either way in `<dir>.init`, moved to `dir` once complete, so a start interrupted meanwhile leaves
 * no half-made database behind. The caller must hold the data-dir lock.
 */
export async function openPGlite(dir: string, o: { readonly template?: string | null; readonly restMaxWaitMs?: number } = {}): Promise<Db> {
  if (!holdsDatabase(dir)) {
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} holds files but no database (no PG_VERSION): move it away to start with a new one`);
    const staging = `${dir}.init`;
    rmSync(staging, { recursive: true, force: true });
    const template = o.template === undefined ? PGDATA_TEMPLATE : o.template;
    if (template !== null && holdsDatabase(template)) cpSync(template, staging, { recursive: true });
    else await initialiseDatabase(staging);
    if (existsSync(dir)) rmdirSync(dir); // empty (checked above)
    renameSync(staging, dir);
  }
  const thread = await PGliteThread.start({ dataDir: dir, settings: SETTINGS });
  const gate = new Gate(thread, o.restMaxWaitMs ?? REST_MAX_WAIT_MS);
  let closing: Promise<void> | null = null;
  const close = () => (closing ??= gate.alone(async () => {
    await thread.request({ op: 'close' });
    await thread.exit();
  }, false));
  const first: Db = laneHandle(thread, gate, true, close, () => first);
  return laneHandle(thread, gate, false, close, () => first);
}
