/**
 * The process runtime's durable state: one `<dataDir>/envs/<env>/state.json` per env, listing
 * every service process the agent started and has not stopped. A restarted agent reads these to
 * *adopt* processes that are still alive (same pid and start time) instead of starting
 * duplicates. Written atomically, mode 0600 (the spec's environment may hold secrets).
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceSpec } from '../../../contracts/spec.js';
import type { Identity } from '../../identity/identity.js';
import { readJsonOrNull, writeJsonAtomic } from '../../files.js';
import { envDir } from './service-env.js';

/**
 * `starting`: spawned, health not yet passed (dying now is a start failure, never restarted).
 * `running`: has been healthy once (dying now means a restart with backoff).
 * `exited`: died while starting; kept for its exit and log until it is stopped or replaced.
 */
export type ServiceState = 'starting' | 'running' | 'exited';

export interface ServiceExit {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface LastExit extends ServiceExit {
  readonly at: string;
  readonly reason: string | null;
}

export interface ServiceRecord {
  readonly env: string;
  readonly version: string;
  readonly service: string;
  readonly spec: ServiceSpec;
  readonly port: number;
  readonly cwd: string;
  /** dataset name → host path, exported as DENV_VOLUME_<NAME>. */
  readonly datasets: Readonly<Record<string, string>>;
  readonly log_path: string;
  /** Where the current process started appending to the log; the tail of a failure reads from here. */
  log_offset: number;
  pid: number | null;
  /** /proc/<pid>/stat field 22; null when it could not be read (the process died at once). */
  start_time: number | null;
  started_at: string;
  state: ServiceState;
  restarts: number;
  exit: ServiceExit | null;
  /** How the service's process last ended, whether or not it was restarted since (`exit` is only
   *  a start failure's): kept for live status. `reason` is what the exit code does not say, e.g.
   *  `OOMKilled`. Absent in state written before it existed. */
  last_exit?: LastExit | null;
  /** Paused on purpose and kept paused (verify freezes the agent service): snapshots resume every
   *  other service but not this one, until `env.resume`. Absent in state written before it existed. */
  held?: boolean;
  /** Who it runs as (null or absent: the agent's own user). */
  identity?: Identity | null;
  /** Started in a PID namespace of its own: `pid` is `unshare`, the payload its child. */
  pid_namespace?: boolean;
  /** HOME when it runs as a user of its own: the env's own work dir. */
  home?: string;
  /** `DENV_<S>_HOST/PORT` of its env when it started (restarts reuse them). */
  siblings?: Readonly<Record<string, string>>;
}

interface EnvStateFile {
  readonly env: string;
  readonly services: readonly ServiceRecord[];
}

export function stateFile(dataDir: string, env: string): string {
  return path.join(envDir(dataDir, env), 'state.json');
}

export async function saveEnvState(dataDir: string, env: string, services: readonly ServiceRecord[]): Promise<void> {
  const file: EnvStateFile = { env, services };
  await writeJsonAtomic(stateFile(dataDir, env), file, 0o600);
}

/** Every record of every env on this host. A corrupt state file is reported and skipped, not fatal. */
export async function loadAllEnvStates(dataDir: string, log: (line: string) => void): Promise<ServiceRecord[]> {
  const envs = await readdir(path.join(dataDir, 'envs')).catch(() => [] as string[]);
  const out: ServiceRecord[] = [];
  for (const env of envs) {
    try {
      const file = (await readJsonOrNull(stateFile(dataDir, env))) as EnvStateFile | null;
      if (file && Array.isArray(file.services)) out.push(...file.services);
    } catch (err) {
      log(`ignoring unreadable state of env ${env}: ${(err as Error).message}`);
    }
  }
  return out;
}

export async function removeEnvState(dataDir: string, env: string): Promise<void> {
  await rm(envDir(dataDir, env), { recursive: true, force: true });
}
