/**
 * A cross-process exclusive lock on a file: a real `flock(2)` lock, held by util-linux's
 * `flock(1)` running `cat` (Node has no flock of its own).
 *
 *   flock --exclusive <file> cat        started with piped stdin/stdout
 *   we write one byte; cat echoes it    → the lock is held (cat only runs once flock has it)
 *   we close cat's stdin                → cat exits, flock exits, the kernel drops the lock
 *
 * The kernel releases the lock whenever the holder goes, so a crashed or SIGKILLed agent never
 * leaves it behind: its pipes close, cat sees EOF and exits. Within one process a `KeyedMutex`
 * queues callers first, so one process never runs two flock helpers for the same key.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { startProgram } from '../../lib/exec.js';
import { KeyedMutex } from '../../lib/mutex.js';

export interface LockOptions {
  /** Give up (TIMEOUT) after this long waiting for another holder. Default 15 min, the command timeout. */
  readonly waitMs?: number;
}

const DEFAULT_WAIT_MS = 15 * 60_000;

/** Acquire the flock on `file`; resolves with the release function once it is held. */
export async function acquireFileLock(file: string, opts: LockOptions = {}): Promise<() => Promise<void>> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const holder = startProgram(['flock', '--exclusive', file, 'cat']);
  holder.write('L');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
  const first = await Promise.race([holder.firstOutput, timedOut]);
  clearTimeout(timer);
  if (first === 'timeout') {
    holder.kill();
    throw new DenvError('TIMEOUT', `lock ${path.basename(file)}: still held by another deploy after ${waitMs} ms`);
  }
  if (first === null) {
    const exit = await holder.exited;
    throw new DenvError('INTERNAL', `lock ${file}: ${exit.error ?? `flock exited (${exit.signal ?? exit.code}): ${exit.stderr.trim()}`}`);
  }
  let released: Promise<void> | null = null;
  return () => {
    released ??= (async () => {
      holder.endInput();
      const quit = setTimeout(() => holder.kill(), 2000);
      await holder.exited;
      clearTimeout(quit);
    })();
    return released;
  };
}

/**
 * Named locks under one directory: `run(key, fn)` runs `fn` holding both the in-process queue for
 * `key` and the flock on `<dir>/<key>.lock`, so pipelines for one service never overlap, whether
 * they come from one agent or from two processes on the same data dir.
 */
export class FileLocks {
  private readonly local = new KeyedMutex();

  constructor(
    readonly dir: string,
    private readonly opts: LockOptions = {},
  ) {}

  /** `key` must be a safe file name (callers pass a slot's file-safe key). */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.local.run(key, async () => {
      const release = await acquireFileLock(path.join(this.dir, `${key}.lock`), this.opts);
      try {
        return await fn();
      } finally {
        await release();
      }
    });
  }
}
