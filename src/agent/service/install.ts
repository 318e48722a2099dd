/**
 * Install, remove and supervise an agent as a service on this machine (service-plan.ts has the
 * layout). Run on a provisioned machine by `denv agent-service …`: over ssh by an ssh cloud, at
 * first boot by a hetzner cloud's cloud-init.
 *
 * Where systemd is the init system the agent runs as `denv-agent.service` (restarted when it exits,
 * started at boot). Elsewhere (containers, these test machines) denv's supervisor runs it: a
 * detached `denv agent-service supervise` that starts the agent again whenever it exits. Without
 * systemd nothing starts the supervisor after a reboot; `denv agent-service install` run again
 * (the cloud's next provision does) brings it back.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startDetached, runOrThrow } from '../../lib/exec.js';
import { agentArgv, envFileText, paths, systemdUnit, UNIT_NAME, UNIT_PATH, type ServiceKind, type ServiceRecord, type ServiceSettings } from './service-plan.js';

/** sd_booted(3): systemd is the init system when this directory exists. */
export const systemdRuns = (): boolean => existsSync('/run/systemd/system');

export interface Installed {
  readonly kind: ServiceKind;
  /** The supervisor's pid (null under systemd). */
  readonly pid: number | null;
  readonly argv: readonly string[];
  /** Set when the supervisor runs but its session could not be given our priority (session-priority.ts). */
  readonly warning?: string;
}

/** Install the agent under `s.dir` and start it, replacing an agent installed there before. */
export async function installService(s: ServiceSettings & { readonly enrollmentKey: string | null }, o: { readonly denvBin: string; readonly systemd?: boolean }): Promise<Installed> {
  const p = paths(s.dir);
  await claimDir(s.dir);
  await stopService(s.dir);
  if (s.enrollmentKey) {
    await writeFile(p.envFile, envFileText(s.enrollmentKey), { mode: 0o600 });
    await chmod(p.envFile, 0o600);
  }
  const argv = agentArgv(process.execPath, o.denvBin, s);
  const kind: ServiceKind = (o.systemd ?? systemdRuns()) ? 'systemd' : 'supervisor';
  const record: ServiceRecord = { kind, argv };
  await writeFile(p.record, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  if (kind === 'systemd') {
    await writeFile(UNIT_PATH, systemdUnit(s, argv), { mode: 0o644 });
    await runOrThrow(['systemctl', 'daemon-reload'], { timeoutMs: 60_000 });
    await runOrThrow(['systemctl', 'enable', UNIT_NAME], { timeoutMs: 60_000 });
    await runOrThrow(['systemctl', 'restart', UNIT_NAME], { timeoutMs: 60_000 });
    return { kind, pid: null, argv };
  }
  const started = await startDetached([process.execPath, o.denvBin, 'agent-service', 'supervise', '--dir', s.dir], { cwd: s.dir, env: process.env as Record<string, string>, logPath: p.log });
  if (!started.ok) throw new Error(`cannot start the supervisor: ${started.message}`);
  await writeFile(p.pidFile, `${started.pid}\n`);
  const warning = await started.priority;
  return { kind, pid: started.pid, argv, ...(warning ? { warning } : {}) };
}

/** Stop the agent installed under `dir` and delete `dir` (only a directory denv made: it holds the marker). */
export async function removeService(dir: string): Promise<{ readonly removed: boolean }> {
  if (!existsSync(dir)) return { removed: false };
  if (!existsSync(paths(dir).marker)) throw new Error(`${dir} was not made by denv (no ${path.basename(paths(dir).marker)} in it): not removing it`);
  const kind = await stopService(dir);
  if (kind === 'systemd') {
    await rm(UNIT_PATH, { force: true });
    await runOrThrow(['systemctl', 'daemon-reload'], { timeoutMs: 60_000 });
  }
  await rm(dir, { recursive: true, force: true });
  return { removed: true };
}

/** `dir` is ours: made with the marker, or already holding it. A directory of someone else's is refused. */
async function claimDir(dir: string): Promise<void> {
  const p = paths(dir);
  if (existsSync(dir) && !existsSync(p.marker)) throw new Error(`${dir} exists and was not made by denv: choose another install_dir`);
  // 0711: services' users reach their workloads below it without listing it.
  await mkdir(dir, { recursive: true, mode: 0o711 });
  await writeFile(p.marker, 'made by denv: `denv agent-service remove` deletes this directory\n');
}

/** Stop the agent installed under `dir`, if one runs; says how it was kept running. */
async function stopService(dir: string): Promise<ServiceKind | null> {
  const p = paths(dir);
  const record = await readFile(p.record, 'utf8').then((t) => JSON.parse(t) as ServiceRecord, () => null);
  if (record?.kind === 'systemd') {
    await runOrThrow(['systemctl', 'disable', '--now', UNIT_NAME], { timeoutMs: 60_000 });
    return 'systemd';
  }
  const pid = Number((await readFile(p.pidFile, 'utf8').catch(() => '')).trim());
  if (pid > 1 && isSupervisor(await argvOf(pid), dir)) {
    process.kill(pid, 'SIGTERM'); // it stops the agent, then exits
    if (!(await exits(pid, 15_000))) process.kill(-pid, 'SIGKILL');
  }
  // An agent whose supervisor died (killed, out of memory) runs on by itself: stop it too.
  for (const orphan of await agentsOf(dir)) {
    process.kill(orphan, 'SIGTERM');
    if (!(await exits(orphan, 15_000))) process.kill(orphan, 'SIGKILL');
  }
  await rm(p.pidFile, { force: true });
  return record?.kind ?? null;
}

/** A process's argv from /proc (empty once it is gone). */
async function argvOf(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
}

/** Whether `argv` is the supervisor of `dir` (not another process that got its pid later). */
const isSupervisor = (argv: readonly string[], dir: string) => argv.includes('supervise') && argv.includes(dir);

/** Pids of agents running with `dir`'s data dir (`denv agent … --data-dir <dir>/agent`). */
async function agentsOf(dir: string): Promise<number[]> {
  const dataDir = paths(dir).dataDir;
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number).filter((n) => n !== process.pid);
  const found: number[] = [];
  for (const pid of pids) {
    const argv = await argvOf(pid);
    const at = argv.indexOf('--data-dir');
    if (argv.includes('agent') && at >= 0 && argv[at + 1] === dataDir) found.push(pid);
  }
  return found;
}

async function exits(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    // A process that is not our child cannot be awaited: look again shortly.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
