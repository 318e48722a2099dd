/**
 * Statements run on the embedded database as named prepared statements (used by pglite-worker.ts).
 *
 * PGlite's own `query()` makes six calls into PostgreSQL per statement (Parse, Describe, Bind,
 * Describe, Execute, Sync), and PostgreSQL parses, analyses and plans the text each time. The
 * control plane sends the same few dozen texts over and over (a deploy's phase commits, command
 * sends and results, the API's lists), so each text is prepared once, under a name of its own,
 * and later runs send Bind, Execute and Sync in one message: PostgreSQL reuses the parse and,
 * after its first few runs, the plan. `node bench/statements.mjs`: a phase commit 0.39 → 0.20 ms,
 * an env by id 0.32 → 0.08 ms (docs/architecture.md has the rest, and what it did to bench/load.mjs).
 *
 * Same answers as `query()`: parameters serialized by PGlite's serializers for the types
 * PostgreSQL inferred, rows parsed by its parsers, PostgreSQL errors thrown with their fields.
 *
 * A prepared statement keeps the result columns it was prepared with, and PostgreSQL refuses to
 * run one whose columns changed ("cached plan must not change result type"). So any `exec` other
 * than transaction control and maintenance (`vacuum`, `analyze`), and any statement that neither
 * reads nor writes rows (`create`, `alter` … run through `query`), forgets every prepared
 * statement; they are closed with the next preparation. At most MAX_PREPARED are kept (the least
 * recently used closed first), so texts built per call cannot grow the cache without bound.
 */
import { parse, protocol, type PGlite } from '@electric-sql/pglite';

export const MAX_PREPARED = 300;

/** What a prepared statement needs for each run: its name, its parameters' types (PostgreSQL's
 *  inference), and the description of its rows (absent when it returns none). */
interface Prepared {
  readonly name: string;
  readonly paramTypes: readonly number[];
  readonly rowDescription: unknown;
}

/** Command tags of statements that read or write rows and leave the schema as it was. */
const ROW_COMMANDS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction|end)\s*;?\s*$/i;

/** One `vacuum` or `analyze` (embedded-vacuum.ts): it reclaims space and refreshes statistics, and
 *  leaves every table's columns as they were. */
const MAINTENANCE = /^\s*(vacuum|analyze)\b[^;]*;?\s*$/i;

/** `exec(sql)` of this text leaves every prepared statement valid. */
export function keepsPrepared(sql: string): boolean {
  return TRANSACTION_CONTROL.test(sql) || MAINTENANCE.test(sql);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

type Message = { readonly name: string } & Record<string, unknown>;

export class PreparedStatements {
  private readonly prepared = new Map<string, Prepared>();
  /** Names no longer used, closed with the next preparation. */
  private stale: string[] = [];
  private nextName = 1;

  constructor(private readonly db: PGlite) {}

  /** Run one statement; resolves with its rows. */
  async query(sql: string, params: readonly unknown[]): Promise<unknown[]> {
    let st = this.prepared.get(sql);
    if (st) {
      // Most recently used last: the oldest unused is closed first when the cache is full.
      this.prepared.delete(sql);
      this.prepared.set(sql, st);
    } else {
      st = await this.prepare(sql);
    }
    const values = params.map((p, i) => {
      if (p === null || p === undefined) return null;
      const serialize = this.db.serializers[st.paramTypes[i]!];
      return serialize ? serialize(p) : String(p);
    });
    const { messages } = (await this.db.execProtocol(concat([protocol.serialize.bind({ statement: st.name, values }), protocol.serialize.execute({}), protocol.serialize.sync()]))) as { messages: Message[] };
    const all = st.rowDescription ? [st.rowDescription, ...messages] : messages;
    const result = parse.parseResults(all as Parameters<typeof parse.parseResults>[0], this.db.parsers)[0];
    // Anything but reading and writing rows (create, alter, drop …) may have changed the schema.
    if (!ROW_COMMANDS.has(result?.command ?? '')) this.forgetAll();
    return result?.rows ?? [];
  }

  /** A schema change may have been made: prepare every text again from now on. */
  forgetAll(): void {
    this.stale.push(...[...this.prepared.values()].map((p) => p.name));
    this.prepared.clear();
  }

  private forget(sql: string): void {
    const st = this.prepared.get(sql);
    if (!st) return;
    this.prepared.delete(sql);
    this.stale.push(st.name);
  }

  private async prepare(sql: string): Promise<Prepared> {
    while (this.prepared.size >= MAX_PREPARED) this.forget(this.prepared.keys().next().value!);
    const name = `denv_${this.nextName++}`;
    const closing = this.stale.splice(0).map((n) => protocol.serialize.close({ type: 'S', name: n }));
    const { messages } = (await this.db.execProtocol(
      concat([...closing, protocol.serialize.parse({ name, text: sql }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]),
      { syncToFs: false },
    )) as { messages: Message[] };
    const st: Prepared = {
      name,
      paramTypes: (messages.find((m) => m.name === 'parameterDescription')?.dataTypeIDs as number[] | undefined) ?? [],
      rowDescription: messages.find((m) => m.name === 'rowDescription'),
    };
    this.prepared.set(sql, st);
    return st;
  }
}
