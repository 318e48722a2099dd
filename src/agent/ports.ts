/**
 * The host-level port registry (DESIGN §7, seed 004): `<dataDir>/ports.json` maps each allocated
 * host port to its owner (`<env>/<version>/<service>`). There is one allocator, and two owners
 * never share a port.
 *
 * Every read-modify-write of the file happens under an in-process mutex *and* an exclusive
 * lockfile (`ports.json.lock`, created with O_EXCL), so allocations from several registry
 * instances or processes on the same data dir never collide. A lock left by a dead process (or
 * held longer than any allocation can take) is broken.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Mutex } from '../lib/mutex.js';
import { DenvError } from '../contracts/errors.js';
import { readJsonOrNull, writeJsonAtomic } from './files.js';

export interface PortRange {
  readonly min: number;
  readonly max: number;
}

export const DEFAULT_PORT_RANGE: PortRange = { min: 20000, max: 29999 };

/** port (as a string key) → owner */
export type PortTable = Record<string, string>;

/** A lock older than this is stale: the critical section takes milliseconds. */
const STALE_LOCK_MS = 10_000;
const LOCK_RETRY_MS = 5;

/** The lowest port of `range` that is not taken and passes `usable`; pure apart from `usable`. */
export async function lowestFreePort(range: PortRange, taken: ReadonlySet<number>, usable: (port: number) => Promise<boolean>): Promise<number | null> {
  for (let port = range.min; port <= range.max; port++) {
    if (taken.has(port)) continue;
    if (await usable(port)) return port;
  }
  return null;
}

/** True when something can listen on 127.0.0.1:`port` right now. */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class PortRegistry {
  readonly file: string;
  private readonly lockFile: string;
  private readonly mutex = new Mutex();

  constructor(
    dataDir: string,
    readonly range: PortRange = DEFAULT_PORT_RANGE,
  ) {
    this.file = path.join(dataDir, 'ports.json');
    this.lockFile = `${this.file}.lock`;
  }

  /** The current table (a copy). */
  read(): Promise<PortTable> {
    return this.locked(async (table) => ({ table, value: { ...table } }));
  }

  /**
   * The port of `owner`. Idempotent: an owner that already holds a port that can still be bound
   * (its service is not running) keeps it; otherwise the lowest free, bindable port is taken.
   * Throws when the range is exhausted.
   */
  allocate(owner: string): Promise<number> {
    return this.locked(async (table) => {
      const held = Object.entries(table).find(([, o]) => o === owner);
      if (held && (await canBind(Number(held[0])))) return { table, value: Number(held[0]) };
      const next = { ...table };
      if (held) delete next[held[0]];
      const taken = new Set(Object.keys(next).map(Number));
      const port = await lowestFreePort(this.range, taken, canBind);
      if (port === null) throw new Error(`no free port in ${this.range.min}-${this.range.max}`);
      next[String(port)] = owner;
      return { table: next, value: port };
    });
  }

  /** Release every port whose owner satisfies `match`; returns how many were released. */
  releaseWhere(match: (owner: string) => boolean): Promise<number> {
    return this.locked(async (table) => {
      const next: PortTable = {};
      let released = 0;
      for (const [port, owner] of Object.entries(table)) {
        if (match(owner)) released++;
        else next[port] = owner;
      }
      return { table: released > 0 ? next : table, value: released };
    });
  }

  release(owner: string): Promise<number> {
    return this.releaseWhere((o) => o === owner);
  }

  /**
   * Give `owner` exactly `port` (a published port the host's config allows): idempotent for the
   * same owner; throws AGENT_ERROR naming who holds it when another owner does or it is in use.
   */
  claim(owner: string, port: number): Promise<number> {
    return this.locked(async (table) => {
      const holder = table[String(port)];
      if (holder === owner) return { table, value: port };
      if (holder !== undefined) throw new DenvError('AGENT_ERROR', `host port ${port} is already published by ${holder}`);
      if (!(await canBind(port))) throw new DenvError('AGENT_ERROR', `host port ${port} is in use on this host`);
      const next: PortTable = Object.fromEntries(Object.entries(table).filter(([, o]) => o !== owner));
      next[String(port)] = owner;
      return { table: next, value: port };
    });
  }

  /** The port `from` holds now belongs to `to` (a live service adopted by another version); null when `from` holds none. */
  transfer(from: string, to: string): Promise<number | null> {
    return this.locked(async (table) => {
      const held = Object.entries(table).find(([, o]) => o === from);
      if (!held) return { table, value: null };
      return { table: { ...table, [held[0]]: to }, value: Number(held[0]) };
    });
  }

  /** Run `fn` on the table under both locks; the table it returns is written back when it changed. */
  private locked<T>(fn: (table: PortTable) => Promise<{ table: PortTable; value: T }>): Promise<T> {
    return this.mutex.run(async () => {
      const release = await this.acquireLockFile();
      try {
        const table = ((await readJsonOrNull(this.file)) ?? {}) as PortTable;
        const out = await fn(table);
        if (out.table !== table) await writeJsonAtomic(this.file, out.table);
        return out.value;
      } finally {
        await release();
      }
    });
  }

  private async acquireLockFile(): Promise<() => Promise<void>> {
    await mkdir(path.dirname(this.lockFile), { recursive: true });
    const token = `${process.pid} ${randomBytes(6).toString('hex')}`;
    for (;;) {
      try {
        const handle = await open(this.lockFile, 'wx', 0o600);
        await handle.writeFile(token);
        await handle.close();
        return async () => {
          // Remove the lock only if it is still ours (it may have been broken as stale).
          const content = await readFile(this.lockFile, 'utf8').catch(() => null);
          if (content === token) await rm(this.lockFile, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      if (await this.lockIsStale()) await rm(this.lockFile, { force: true });
      else await new Promise((r) => setTimeout(r, LOCK_RETRY_MS + Math.random() * LOCK_RETRY_MS));
    }
  }

  /**
   * A lock is stale when its holder's process is gone, or it is older than any allocation can
   * take. (Breaking a lock races with another breaker only after a holder died or hung, and the
   * holder's release checks its token, so a live holder never deletes someone else's lock.)
   */
  private async lockIsStale(): Promise<boolean> {
    const [content, info] = await Promise.all([readFile(this.lockFile, 'utf8').catch(() => null), stat(this.lockFile).catch(() => null)]);
    if (content === null || info === null) return false; // just released: retry at once
    if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(content.split(' ')[0]);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
  }
}
