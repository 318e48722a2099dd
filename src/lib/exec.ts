/**
 * The one module that runs external programs (STYLE 1, DESIGN §14). Programs are always given
 * as an argv array and started without a shell: `shell: true` and command strings are never used,
 * so nothing a user writes is ever interpreted by `sh`.
 *
 * `run` resolves for every program that *ran*, whatever its exit; it rejects with an `ExecError`
 * only when the program could not be started at all (not found, not executable, bad cwd).
 * Callers that treat a non-zero exit as an error use `runOrThrow`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { keepStarterPriority } from './session-priority.js';

export interface RunOptions {
  readonly cwd?: string;
  /** The program's whole environment (not merged with ours). Default: this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Kill the program's process group with SIGKILL after this many ms; the result says `timedOut`. */
  readonly timeoutMs?: number;
  /** Written to stdin, which is then closed (a stream: piped in until it ends). Without it stdin is /dev/null. */
  readonly input?: string | Uint8Array | NodeJS.ReadableStream;
  /** Aborting kills the process group, like a timeout (but `timedOut` stays false). */
  readonly signal?: AbortSignal;
  /** Keep at most this many bytes of each stream, the *last* ones (where errors and results are). Default 1 MiB. */
  readonly maxOutputBytes?: number;
  /** Called with each chunk of stdout and stderr as it arrives (a build's output, shown live). */
  readonly onOutput?: (chunk: Buffer) => void;
}

export interface RunResult {
  /** null when the program was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** A program that could not start, or (from `runOrThrow`) exited non-zero. */
export class ExecError extends Error {
  readonly argv: readonly string[];
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** The errno code when the program could not be started (`ENOENT`, `EACCES` …), else null. */
  readonly errno: string | null;
  constructor(argv: readonly string[], message: string, details: { exitCode?: number | null; signal?: NodeJS.Signals | null; stderr?: string; errno?: string | null } = {}) {
    super(message);
    this.name = 'ExecError';
    this.argv = argv;
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
    this.stderr = details.stderr ?? '';
    this.errno = details.errno ?? null;
  }
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
/** After the program exits, how long to wait for its pipes to close (a daemonised grandchild may hold them). */
const DRAIN_AFTER_EXIT_MS = 500;

/** Collects the last `cap` bytes written to a stream. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.cap;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** SIGKILL the process group `child` leads (it was started `detached`), or the child alone if that fails; nothing once it has exited. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export function run(argv: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const [program, ...args] = argv;
  if (program === undefined) return Promise.reject(new ExecError(argv, 'cannot run an empty command'));
  const cap = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  return new Promise<RunResult>((resolve, reject) => {
    // detached: the program leads its own process group, so a timeout or abort kills its children too.
    const child = spawn(program, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: [opts.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
    });
    const stdout = new TailBuffer(cap);
    const stderr = new TailBuffer(cap);
    child.stdout?.on('data', (c: Buffer) => (stdout.push(c), opts.onOutput?.(c)));
    child.stderr?.on('data', (c: Buffer) => (stderr.push(c), opts.onOutput?.(c)));
    let timedOut = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let drainTimer: NodeJS.Timeout | undefined;

    const kill = () => !exit && killGroup(child);
    const timer = opts.timeoutMs !== undefined ? setTimeout(() => ((timedOut = true), kill()), opts.timeoutMs) : undefined;
    const onAbort = () => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) kill();

    const cleanup = () => {
      settled = true;
      if (timer) clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const finish = () => {
      if (settled || !exit) return;
      cleanup();
      resolve({ exitCode: exit.code, signal: exit.signal, stdout: stdout.text(), stderr: stderr.text(), timedOut });
    };

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      cleanup();
      reject(new ExecError(argv, `cannot run "${program}": ${err.code ?? err.message}`, { errno: err.code ?? null, stderr: err.message }));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', finish);

    if (opts.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // the program may exit without reading its input (EPIPE)
      if (typeof opts.input === 'string' || opts.input instanceof Uint8Array) child.stdin.end(opts.input);
      else opts.input.pipe(child.stdin);
    }
  });
}

/** `run`, but a non-zero exit, a signal or a timeout throws an `ExecError` carrying argv, exit code and stderr. */
export async function runOrThrow(argv: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const result = await run(argv, opts);
  if (result.exitCode === 0) return result;
  const how = result.timedOut ? `timed out after ${opts.timeoutMs} ms` : result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  const detail = result.stderr.trim().split('\n').slice(-3).join(' | ');
  throw new ExecError(argv, `${argv.join(' ')} ${how}${detail ? `: ${detail}` : ''}`, { exitCode: result.exitCode, signal: result.signal, stderr: result.stderr });
}

/**
 * `producer | consumer` without a shell: the producer's stdout is the consumer's stdin. Throws
 * (as runOrThrow) when either fails; the consumer's result otherwise. A failed consumer takes the
 * producer down with it (its group is killed), so nothing is left writing into a closed pipe.
 */
export async function runPipedOrThrow(producer: readonly string[], consumer: readonly string[], opts: Omit<RunOptions, 'input'> & { readonly producerCwd?: string } = {}): Promise<RunResult> {
  const source = startStreaming(producer, { cwd: opts.producerCwd, env: opts.env });
  let consumed: RunResult;
  try {
    consumed = await runOrThrow(consumer, { ...opts, input: source.stdout });
  } catch (err) {
    source.kill();
    throw err;
  }
  const p = await source.exited;
  if (p.code !== 0) {
    const how = p.errno ? `could not start: ${p.errno}` : p.signal ? `was killed by ${p.signal}` : `exited with code ${p.code}`;
    const detail = p.stderr.trim().split('\n').slice(-3).join(' | ');
    throw new ExecError(producer, `${producer.join(' ')} ${how}${detail ? `: ${detail}` : ''}`, { exitCode: p.code, signal: p.signal, stderr: p.stderr, errno: p.errno });
  }
  return consumed;
}

/** A program whose output is read as a stream (`startStreaming`). */
export interface StreamingProgram {
  readonly stdout: NodeJS.ReadableStream;
  /** Resolves once it has exited (never rejects); `error` (and `errno`) when it could not start. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error: string | null; errno: string | null }>;
  /** SIGKILL its process group (the reader went away). */
  kill(): void;
}

/** Start `argv` (no shell, stdin /dev/null) for its stdout as a stream: an archive sent as it is made. */
export function startStreaming(argv: readonly string[], opts: Pick<RunOptions, 'cwd' | 'env'> = {}): StreamingProgram {
  const [program, ...args] = argv;
  if (program === undefined) throw new ExecError(argv, 'cannot run an empty command');
  const child = spawn(program, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false });
  const stderr = new TailBuffer(64 * 1024);
  child.stderr?.on('data', (c: Buffer) => stderr.push(c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error: string | null; errno: string | null }>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => resolve({ code: null, signal: null, stderr: '', error: `cannot run "${program}": ${err.code ?? err.message}`, errno: err.code ?? err.message }));
    child.once('close', (code, signal) => resolve({ code, signal, stderr: stderr.text(), error: null, errno: null }));
  });
  return {
    stdout: child.stdout!,
    exited,
    kill: () => killGroup(child),
  };
}

/** A program that keeps running while the caller talks to it (see `startProgram`). */
export interface RunningProgram {
  readonly argv: readonly string[];
  readonly pid: number | undefined;
  /** Write to its stdin. */
  write(data: string): void;
  /** Close its stdin (a filter such as `cat` then exits). */
  endInput(): void;
  /** Resolves with the first stdout chunk, or null when the program exits (or cannot start) first. */
  readonly firstOutput: Promise<string | null>;
  /** Resolves once it has exited (never rejects); `error` is set when it could not start. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error: string | null }>;
  /** SIGKILL its process group. */
  kill(): void;
}

/**
 * Start `argv` (no shell) and keep it running with its stdin and stdout piped to us — for helpers
 * whose lifetime is the point, such as `flock file cat` holding a lock until its stdin closes.
 * Its own process group, so `kill()` takes its children too. If this process dies, the pipes close
 * and a well-behaved helper exits on EOF.
 */
export function startProgram(argv: readonly string[], opts: Pick<RunOptions, 'cwd' | 'env'> = {}): RunningProgram {
  const [program, ...args] = argv;
  if (program === undefined) throw new ExecError(argv, 'cannot run an empty command');
  const child = spawn(program, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, shell: false });
  const stderr = new TailBuffer(16 * 1024);
  child.stderr?.on('data', (c: Buffer) => stderr.push(c));
  child.stdin?.on('error', () => {}); // EPIPE when it has exited
  let startError: string | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error: string | null }>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      startError = `cannot run "${program}": ${err.code ?? err.message}`;
      resolve({ code: null, signal: null, stderr: '', error: startError });
    });
    child.once('close', (code, signal) => resolve({ code, signal, stderr: stderr.text(), error: startError }));
  });
  const firstOutput = new Promise<string | null>((resolve) => {
    child.stdout?.once('data', (c: Buffer) => resolve(c.toString('utf8')));
    void exited.then(() => resolve(null));
  });
  child.stdout?.on('data', () => {}); // keep draining after the first chunk
  return {
    argv,
    pid: child.pid,
    write: (data) => void child.stdin?.write(data),
    endInput: () => void child.stdin?.end(),
    firstOutput,
    exited,
    kill: () => killGroup(child),
  };
}

export type DetachedOutcome =
  /** `priority`: settles once its session has our priority (null) or could not get it (why; it runs on). */
  | { readonly ok: true; readonly child: ChildProcess; readonly pid: number; readonly logOffset: number; readonly priority: Promise<string | null> }
  | { readonly ok: false; readonly message: string };

const ERRNO_HINTS: Record<string, string> = {
  ENOENT: 'not found',
  EACCES: 'permission denied',
  ENOEXEC: 'not an executable',
};

/**
 * Start a program that outlives us: its own session and process group (`detached`), no pipes back
 * (stdout and stderr are appended to `logPath`, made 0600), and `unref()` so our event loop does
 * not wait for it. Its session's scheduling group gets our priority (session-priority.ts: a
 * session of its own would otherwise compete for the CPU on par with our whole session, whatever
 * our nice). Resolves once it has started (with the log's size before it wrote anything), or with
 * why it could not start.
 */
export async function startDetached(argv: readonly string[], o: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly logPath: string }): Promise<DetachedOutcome> {
  const [program, ...args] = argv;
  if (program === undefined) return { ok: false, message: 'has an empty command' };
  await mkdir(path.dirname(o.logPath), { recursive: true });
  const log = await open(o.logPath, 'a', 0o600);
  try {
    const { size } = await log.stat();
    const child = spawn(program, args, { cwd: o.cwd, env: o.env, detached: true, stdio: ['ignore', log.fd, log.fd], shell: false });
    // A ChildProcess 'error' without a listener would crash us; spawn failures are handled below.
    child.on('error', () => {});
    const failure = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err));
    });
    if (failure || child.pid === undefined) {
      const code = failure?.code ?? 'unknown error';
      return { ok: false, message: `cannot start "${program}": ${code}${ERRNO_HINTS[code] ? ` (${ERRNO_HINTS[code]})` : ''}` };
    }
    child.unref();
    // Not awaited: the write is made at once, and only one the kernel rate-limits waits its turn.
    return { ok: true, child, pid: child.pid, logOffset: size, priority: keepStarterPriority(child.pid) };
  } finally {
    await log.close(); // the child holds its own copy of the descriptor
  }
}
