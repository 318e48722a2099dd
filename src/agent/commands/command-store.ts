/**
 * The agent's record of the commands it applies (DESIGN §6), one file per id in `<dir>`:
 *
 *   running   {id, kind, env, started_at}                                  written before the work starts
 *   finished  {id, kind, env, started_at, finished_at, outcome, acked}     written before anyone is answered
 *
 * At most once: a new id runs; an id still running in this process is *joined* (the caller gets
 * the same promise); a finished id is answered from its record, even after an agent restart.
 *
 * Cut short: a record still `running` when the agent starts belongs to a run its restart (SIGKILL,
 * power loss) interrupted. `interrupted()` lists them at start-up (the agent undoes what must not
 * outlive a run, e.g. services left paused by a snapshot), and when the control plane delivers
 * such an id again — it re-sends every open command when the host reconnects — it runs again,
 * `resumed`: commands are idempotent (env.create adopts what the cut-short run started). The
 * payload is not recorded: it may carry secrets and signed env values that never touch disk here.
 *
 * At least once: a finished record stays `acked: false` until the control plane says it stored the
 * result (`ack`); `unacked()` lists the results to send again after a restart. Records written
 * before acknowledgements existed have no `acked` and count as acknowledged.
 *
 * Records older than 24 h are pruned at start (the control plane stops re-sending long before).
 */
import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isDenvError, messageOf } from '../../contracts/errors.js';
import { killPoint } from '../../lib/kill-point.js';
import { readJsonOrNull, SAFE_NAME, writeJsonAtomic } from '../files.js';

export type CommandOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** How the outcome was obtained: ran now, ran again after a restart cut an earlier run short,
 *  joined a run in flight, or read from a finished run. */
export type OutcomeSource = 'ran' | 'resumed' | 'joined' | 'stored';

interface CommandRecord {
  readonly id: string;
  readonly kind: string;
  /** The env the command acts on (null: none); kept so a cut-short run can be cleaned up after. */
  readonly env?: string | null;
  readonly started_at?: string;
  readonly finished_at?: string;
  readonly outcome?: CommandOutcome;
  /** false until the control plane acknowledged the result; absent in records older than acks. */
  readonly acked?: boolean;
}

/** A run cut short by an agent restart. */
export interface InterruptedCommand {
  readonly id: string;
  readonly kind: string;
  readonly env: string | null;
  readonly started_at: string | null;
}

/** A finished command whose result the control plane has not acknowledged yet. */
export interface UnackedResult {
  readonly id: string;
  readonly outcome: CommandOutcome;
}

export const RESULT_RETENTION_MS = 24 * 3600 * 1000;

/** The outcome of a thrown error: a DenvError keeps its code, anything else is AGENT_ERROR. */
export function outcomeOfError(err: unknown): CommandOutcome {
  return { ok: false, error: { code: isDenvError(err) ? err.code : 'AGENT_ERROR', message: messageOf(err) } };
}

export class CommandStore {
  private readonly inFlight = new Map<string, Promise<CommandOutcome>>();

  constructor(
    private readonly dir: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** A safe file name for any id: the id itself when it is a plain name, else a hash of it. */
  private file(id: string): string {
    const base = SAFE_NAME.test(id) ? id : `h-${createHash('sha256').update(id).digest('hex')}`;
    return path.join(this.dir, `${base}.json`);
  }

  /** Run `work` once per `id` (see the module comment). Never rejects: errors become outcomes.
   *  A record that cannot be written (a full disk) is logged and the work still runs: the
   *  control plane then gets the result of this run, and a re-delivery may run it again. */
  async run(id: string, kind: string, work: () => Promise<unknown>, env: string | null = null): Promise<{ outcome: CommandOutcome; source: OutcomeSource }> {
    const running = this.inFlight.get(id);
    if (running) return { outcome: await running, source: 'joined' };
    let source: OutcomeSource = 'ran';
    // Registered synchronously, before any await, so a duplicate arriving meanwhile joins it.
    const promise = (async (): Promise<CommandOutcome> => {
      const stored = await this.read(id);
      if (stored?.outcome) {
        source = 'stored';
        return stored.outcome;
      }
      if (stored) source = 'resumed';
      const started: CommandRecord = { id, kind, env, started_at: stored?.started_at ?? new Date().toISOString() };
      await this.write(started);
      killPoint(`command:${kind}:start`);
      let outcome: CommandOutcome;
      try {
        outcome = { ok: true, result: await work() };
      } catch (err) {
        outcome = outcomeOfError(err);
      }
      killPoint(`command:${kind}:end`);
      await this.write({ ...started, finished_at: new Date().toISOString(), outcome, acked: false });
      return outcome;
    })();
    this.inFlight.set(id, promise);
    try {
      return { outcome: await promise, source };
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** The control plane stored the result of `id`: it need not be sent again. Idempotent; an id
   *  with no finished record (a read-only command, or one pruned) is ignored. */
  async ack(id: string): Promise<void> {
    const record = await this.read(id);
    if (!record?.outcome || record.acked !== false) return;
    await this.write({ ...record, acked: true });
  }

  /** What an agent starting on this store must pick up, from one read of the records: runs a
   *  restart cut short, and results not acknowledged yet. Only meaningful at start-up, before any
   *  command runs in this process (a run in flight looks like a cut-short one). */
  async recover(): Promise<{ interrupted: InterruptedCommand[]; unacked: UnackedResult[] }> {
    const records = await this.records();
    return { interrupted: interruptedOf(records), unacked: unackedOf(records) };
  }

  /** Finished results not acknowledged yet, oldest first. */
  async unacked(): Promise<UnackedResult[]> {
    return unackedOf(await this.records());
  }

  /** Runs recorded as started and never finished (see `recover`). */
  async interrupted(): Promise<InterruptedCommand[]> {
    return interruptedOf(await this.records());
  }

  private async records(): Promise<CommandRecord[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const records: CommandRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue; // a temp file a crash left behind
      const record = (await readJsonOrNull(path.join(this.dir, name)).catch(() => null)) as CommandRecord | null;
      if (record && typeof record.id === 'string') records.push(record);
    }
    return records;
  }

  private async write(record: CommandRecord): Promise<void> {
    await writeJsonAtomic(this.file(record.id), record, 0o600).catch((err: unknown) => this.log(`cannot record command ${record.id}: ${messageOf(err)}`));
  }

  private async read(id: string): Promise<CommandRecord | null> {
    try {
      return (await readJsonOrNull(this.file(id))) as CommandRecord | null;
    } catch (err) {
      this.log(`ignoring the unreadable record of command ${id}: ${messageOf(err)}`);
      return null;
    }
  }

  /** Delete records written more than `maxAgeMs` ago (by file time); returns how many. */
  async prune(maxAgeMs = RESULT_RETENTION_MS, now = Date.now()): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    let pruned = 0;
    for (const name of names) {
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => null);
      if (info && now - info.mtimeMs > maxAgeMs) {
        await rm(file, { force: true });
        pruned++;
      }
    }
    return pruned;
  }
}

function unackedOf(records: readonly CommandRecord[]): UnackedResult[] {
  const finished = records.filter((r) => r.outcome && r.acked === false);
  finished.sort((a, b) => (a.finished_at ?? '').localeCompare(b.finished_at ?? '') || a.id.localeCompare(b.id));
  return finished.map((r) => ({ id: r.id, outcome: r.outcome! }));
}

function interruptedOf(records: readonly CommandRecord[]): InterruptedCommand[] {
  return records.filter((r) => !r.outcome).map((r) => ({ id: r.id, kind: r.kind, env: r.env ?? null, started_at: r.started_at ?? null }));
}
