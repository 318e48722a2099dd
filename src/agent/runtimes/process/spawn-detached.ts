/**
 * Start a service process so that it outlives the agent: its own session and process group
 * (`detached`), no pipes back to the agent (stdout and stderr are an append-mode log file), and
 * `unref()` so the agent's event loop does not wait for it. An agent killed with SIGKILL leaves
 * the process running, to be adopted by the next agent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open, stat } from 'node:fs/promises';
import path from 'node:path';
import { readProcStat } from './proc-stat.js';

export type SpawnOutcome =
  | { readonly ok: true; readonly child: ChildProcess; readonly pid: number; readonly startTime: number | null; readonly logOffset: number }
  | { readonly ok: false; readonly message: string };

const ERRNO_HINTS: Record<string, string> = {
  ENOENT: 'not found',
  EACCES: 'permission denied',
  ENOEXEC: 'not an executable',
};

export async function spawnDetached(argv: readonly string[], cwd: string, env: Record<string, string>, logPath: string): Promise<SpawnOutcome> {
  const [program, ...args] = argv;
  if (program === undefined) return { ok: false, message: 'has an empty command' };
  const cwdInfo = await stat(cwd).catch(() => null);
  if (!cwdInfo?.isDirectory()) return { ok: false, message: `working_dir ${cwd} does not exist or is not a directory` };
  await mkdir(path.dirname(logPath), { recursive: true });
  const log = await open(logPath, 'a', 0o600);
  try {
    const { size } = await log.stat();
    const child = spawn(program, args, { cwd, env, detached: true, stdio: ['ignore', log.fd, log.fd], shell: false });
    // A ChildProcess 'error' without a listener would crash the agent; spawn failures are handled below.
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
    const procStat = await readProcStat(child.pid);
    return { ok: true, child, pid: child.pid, startTime: procStat?.startTime ?? null, logOffset: size };
  } finally {
    await log.close(); // the child holds its own copy of the descriptor
  }
}
