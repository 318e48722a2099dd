/**
 * Start a service process so that it outlives the agent: its own session and process group
 * (`detached`), no pipes back to the agent (stdout and stderr are an append-mode log file), and
 * `unref()` so the agent's event loop does not wait for it. An agent killed with SIGKILL leaves
 * the process running, to be adopted by the next agent. Its session keeps the agent's CPU priority
 * (startDetached; `priority` says when it could not).
 */
import type { ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { startDetached } from '../../../lib/exec.js';
import { readProcStat } from './proc-stat.js';

export type SpawnOutcome =
  | { readonly ok: true; readonly child: ChildProcess; readonly pid: number; readonly startTime: number | null; readonly logOffset: number; readonly priority: Promise<string | null> }
  | { readonly ok: false; readonly message: string };

export async function spawnDetached(argv: readonly string[], cwd: string, env: Record<string, string>, logPath: string): Promise<SpawnOutcome> {
  const cwdInfo = await stat(cwd).catch(() => null);
  if (!cwdInfo?.isDirectory()) return { ok: false, message: `working_dir ${cwd} does not exist or is not a directory` };
  const started = await startDetached(argv, { cwd, env, logPath });
  if (!started.ok) return started;
  const procStat = await readProcStat(started.pid);
  return { ...started, startTime: procStat?.startTime ?? null };
}
