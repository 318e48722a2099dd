/**
 * Servers the tests start themselves (Caddy, PowerDNS): wait until one answers, failing at once —
 * with what it printed — when it cannot be spawned (not installed) or exits first (it is then
 * stopped and cleaned up); and stop one.
 */
import type { ChildProcess } from 'node:child_process';

export interface DaemonStart {
  /** Its name in messages (`caddy's admin API`). */
  readonly what: string;
  /** What to tell the user when the program is missing (ENOENT), e.g. the apt-get line. */
  readonly missing: string;
  /** Resolves true once it answers; a throw counts as "not up yet". */
  readonly probe: () => Promise<boolean>;
  readonly output: () => string;
  readonly timeoutMs?: number;
  /** Run after the process is stopped when it never answered (remove its temp dir). */
  readonly cleanup?: () => void;
}

export async function waitUntilServing(proc: ChildProcess, o: DaemonStart): Promise<void> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const spawnError = new Promise<never>((_, reject) =>
    proc.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'ENOENT' ? o.missing : `${o.what} did not start: ${err.message}`))),
  );
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`${o.what} exited (${code}) before it answered:\n${o.output()}`))));
  const poll = (async () => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await o.probe().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${o.what} did not answer within ${timeoutMs / 1000} s:\n${o.output()}`);
  })();
  try {
    await Promise.race([poll, spawnError, exited]);
  } catch (err) {
    await stopProcess(proc);
    o.cleanup?.();
    throw err;
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
