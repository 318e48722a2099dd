/**
 * Support for the fault tests (test/faults/): real `denv server` and `denv agent` processes that
 * are killed and started again on the same data dirs, crash points armed through `DENV_KILL_AT`
 * (src/lib/kill-point.ts), and the three checks every fault test ends with — the deployment is
 * terminal within 60 s, one version of the env runs, nothing was applied twice.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment } from '../../src/contracts/domain.js';
import type { Api } from './api.js';
import { spawnDenv, type Child } from './processes.js';

export const APP = fileURLToPath(new URL('../fixtures/app.js', import.meta.url));

/** The bound the issue sets: after any single crash, every deployment is terminal this soon after both sides are up. */
export const TERMINAL_WITHIN_MS = 60_000;

export const hasExited = (c: Child) => c.proc.exitCode !== null || c.proc.signalCode !== null;

export function exitOf(c: Child): Promise<void> {
  if (hasExited(c)) return Promise.resolve();
  return new Promise((r) => c.proc.once('exit', () => r()));
}

/** Crash points for a child process: `points` armed, each firing once across restarts (markers in `onceDir`). */
export function killPointsEnv(points: readonly string[], onceDir: string): Record<string, string> {
  mkdirSync(onceDir, { recursive: true });
  return { DENV_KILL_AT: points.join(','), DENV_KILL_ONCE_DIR: onceDir };
}

/** The points that fired so far (their marker files). */
export function firedPoints(onceDir: string): string[] {
  try {
    return readdirSync(onceDir).map(decodeURIComponent).sort();
  } catch {
    return [];
  }
}

/** `denv server` on `port` and `dataDir` (an existing PGlite copy, or `--database-url` in `args`); not awaited: it may crash before it listens. */
export function spawnServer(o: { dataDir: string; port: number; args?: readonly string[]; env?: Record<string, string> }): Child {
  return spawnDenv(['server', '--port', String(o.port), '--data-dir', o.dataDir, ...(o.args ?? [])], o.env);
}

const TERMINAL = ['succeeded', 'failed', 'rolled_back'];

/**
 * Wait until deployment `id` is terminal (its record) or `process` exits (a crash point fired),
 * whichever comes first, for at most `ms`. The API may be down meanwhile (a killed control plane).
 */
export async function terminalOrExit(api: Api, id: string, process: Child, ms = TERMINAL_WITHIN_MS): Promise<Deployment | 'exited'> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (hasExited(process)) return 'exited';
    try {
      const { status, body } = await api.get<Deployment>(`/v1/deployments/${id}`);
      if (status === 200 && TERMINAL.includes(body.status)) return body;
    } catch {
      /* the server is not listening (yet, or any more) */
    }
    if (Date.now() > deadline) throw new Error(`deployment ${id} was not terminal within ${ms} ms and ${process.proc.spawnargs.slice(2, 3).join(' ')} did not exit`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One delivery as the agent recorded it (`<agent data dir>/command-log.jsonl`, commands/dispatch.ts). */
export interface Delivery {
  readonly id: string;
  readonly kind: string;
  readonly env: string | null;
  readonly source: 'ran' | 'resumed' | 'joined' | 'stored' | 'refused';
}

export function deliveries(agentDir: string): Delivery[] {
  let text = '';
  try {
    text = readFileSync(join(agentDir, 'command-log.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Delivery);
}

/** Command ids the agent applied more than once (ran, or resumed after a restart, counted together). */
export function appliedTwice(agentDir: string): string[] {
  const applied = new Map<string, number>();
  for (const d of deliveries(agentDir)) if (d.source === 'ran' || d.source === 'resumed') applied.set(d.id, (applied.get(d.id) ?? 0) + 1);
  return [...applied].filter(([, n]) => n > 1).map(([id]) => id);
}

/**
 * The service processes of one test's envs, read from /proc: every live (not zombie) `node`
 * process whose environment holds `FAULT_RUN=<run>`, with its VERSION and ENV_NAME variables.
 * Independent of what the agent believes it runs.
 */
export function runningServices(run: string): { pid: number; version: string; env: string }[] {
  const found: { pid: number; version: string; env: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const argv0 = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0] ?? '';
      if (!/(^|\/)node$/.test(argv0)) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!environ.includes(`FAULT_RUN=${run}`)) continue;
      const value = (k: string) => environ.find((e) => e.startsWith(`${k}=`))?.slice(k.length + 1) ?? '';
      found.push({ pid: Number(name), version: value('VERSION'), env: value('ENV_NAME') });
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}

/** The versions whose processes run for `env` (by the ENV_NAME the test gave it). */
export function versionsRunning(run: string, env: string): string[] {
  return [...new Set(runningServices(run).filter((s) => s.env === env).map((s) => s.version))].sort();
}

/** The state letter of /proc/<pid>/stat (`R`, `S`, `T` stopped, …), or null when gone. */
export function procState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** The test app as one service, tagged so its processes are found in /proc (runningServices). */
export function appCompose(o: { run: string; env: string; version: string; environment?: Record<string, string>; health?: Record<string, unknown>; volume?: boolean }) {
  return {
    services: {
      web: {
        command: ['node', APP],
        environment: { VERSION: o.version, FAULT_RUN: o.run, ENV_NAME: o.env, ...o.environment },
        ...(o.volume ? { volumes: ['data:/data'] } : {}),
        'x-denv': { health: { path: '/healthz', timeout: '20s', ...o.health } },
      },
    },
    ...(o.volume ? { volumes: { data: {} } } : {}),
  };
}

/** The number of deployment.started / deployment.finished events of a deployment (each must be 1). */
export async function lifecycleEvents(api: Api, id: string): Promise<{ started: number; finished: number }> {
  const items = (await api.get(`/v1/events?subject=dep:${id}&limit=1000`)).body.items as { type: string }[];
  return { started: items.filter((e) => e.type === 'deployment.started').length, finished: items.filter((e) => e.type === 'deployment.finished').length };
}
