/**
 * At-most-once application of commands (DESIGN §6). The control plane delivers each command at
 * least once; the agent keys every run by command id:
 *
 *   - a new id runs, and its outcome (result or error) is persisted in `<dir>/<id>.json` before
 *     anyone is answered;
 *   - an id still running is *joined*: the caller gets the same promise, nothing runs twice;
 *   - a finished id is answered from the file, even after an agent restart.
 *
 * Stored outcomes older than 24 h are pruned at start (the control plane stops re-sending long
 * before that).
 */
import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isDenvError, messageOf } from '../../contracts/errors.js';
import { readJsonOrNull, SAFE_NAME, writeJsonAtomic } from '../files.js';

export type CommandOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** How the outcome was obtained: ran now, joined a run in flight, or read from a finished run. */
export type OutcomeSource = 'ran' | 'joined' | 'stored';

interface StoredCommand {
  readonly id: string;
  readonly kind: string;
  readonly finished_at: string;
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

  /** Run `work` once per `id` (see the module comment). Never rejects: errors become outcomes. */
  async run(id: string, kind: string, work: () => Promise<unknown>): Promise<{ outcome: CommandOutcome; source: OutcomeSource }> {
    const running = this.inFlight.get(id);
    if (running) return { outcome: await running, source: 'joined' };
    let source: OutcomeSource = 'ran';
    // Registered synchronously, before any await, so a duplicate arriving meanwhile joins it.
    const promise = (async (): Promise<CommandOutcome> => {
      const stored = await this.read(id);
      if (stored) {
        source = 'stored';
        return stored.outcome;
      }
      let outcome: CommandOutcome;
      try {
        outcome = { ok: true, result: await work() };
      } catch (err) {
        outcome = outcomeOfError(err);
      }
      const record: StoredCommand = { id, kind, finished_at: new Date().toISOString(), outcome };
      await writeJsonAtomic(this.file(id), record, 0o600).catch((err: unknown) => this.log(`cannot persist the result of command ${id}: ${messageOf(err)}`));
      return outcome;
    })();
    this.inFlight.set(id, promise);
    try {
      return { outcome: await promise, source };
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async read(id: string): Promise<StoredCommand | null> {
    try {
      return (await readJsonOrNull(this.file(id))) as StoredCommand | null;
    } catch (err) {
      this.log(`ignoring unreadable stored result of command ${id}: ${messageOf(err)}`);
      return null;
    }
  }

  /** Delete stored outcomes finished more than `maxAgeMs` ago (by file time); returns how many. */
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
