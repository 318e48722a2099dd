/**
 * The `process` runtime: services with a `command` and no `image` run as supervised host
 * processes (DESIGN §3). It owns the processes and their durable state; it knows nothing of
 * ports, health or commands (the env operations in `agent/envs/` compose those).
 *
 * Supervision: every `pollMs` each process is checked (pid alive *and* same start time). A
 * process that dies while `starting` becomes `exited` (a start failure, never restarted); one
 * that dies after it was healthy (`running`) is restarted with exponential backoff, same port,
 * and its `restarts` counted. Our own children also report their exit at once through the
 * ChildProcess; adopted ones (started by a previous agent) are seen by the poll.
 */
import type { ChildProcess } from 'node:child_process';
import type { ServiceSpec } from '../../../contracts/spec.js';
import type { Identity } from '../../identity/identity.js';
import { fillArgv } from '../../envs/siblings.js';
import { contextArgv, launchArgv } from './launch-argv.js';
import { catchesSignal, payloadPid } from './payload-pid.js';
import { hasLimits } from './limit-files.js';
import { DEFAULT_LOG_MAX_BYTES, rotateIfLarge } from './log-rotation.js';
import { attach, createLimits, removeLimits } from './service-cgroups.js';
import { messageOf } from '../../../contracts/errors.js';
import { loadAllEnvStates, removeEnvState, saveEnvState, type ServiceExit, type ServiceRecord } from './env-state.js';
import { isSameProcessAlive, readProcStat, signalGroup, signalPid } from './proc-stat.js';
import { nextCrashCount, restartDelayMs } from './restart-policy.js';
import { serviceEnvironment, serviceKey, serviceLogPath, type ServiceIdentity } from './service-env.js';
import { spawnDetached } from './spawn-detached.js';
import { usablePath } from '../../identity/usable-path.js';
import { processGroupsOf, SpawnJournal } from './spawn-journal.js';

export interface ProcessRuntimeOptions {
  readonly dataDir: string;
  readonly log?: (line: string) => void;
  /** Liveness poll period (default 500 ms). */
  readonly pollMs?: number;
  /** SIGTERM → SIGKILL grace on stop (default 5 s). */
  readonly stopGraceMs?: number;
  /** Where PATH, HOME … are inherited from (default process.env). */
  readonly inheritedEnv?: Readonly<Record<string, string | undefined>>;
  /** Tells why a process ended beyond its exit code (the agent's telemetry: OOM kills). */
  readonly exitReasons?: ExitReasonSource;
  /** A service's log is rotated past this size (default 10 MiB; log-rotation.ts). */
  readonly logMaxBytes?: number;
}

/** Told of every spawn; asked at every death (by service key, `env/version/service`). */
export interface ExitReasonSource {
  observe(key: string, pid: number): Promise<void>;
  explain(key: string, pid: number | null, exit: ServiceExit): Promise<string | null>;
}

export interface StartRequest extends ServiceIdentity {
  readonly spec: ServiceSpec;
  readonly port: number;
  readonly datasets: Readonly<Record<string, string>>;
  /** Who it runs as (identity/identity.ts); null: the agent's own user. */
  readonly identity?: Identity | null;
  /** Run in a PID namespace of its own (services that write a dataset; launch-argv.ts). */
  readonly pidNamespace?: boolean;
  /** `DENV_<S>_HOST/PORT` of the env's services, filled into `${DENV_…}` references (siblings.ts). */
  readonly siblings?: Readonly<Record<string, string>>;
  /** Where it runs (start-version settles it: the service's own dir, or an allowed working_dir). */
  readonly cwd: string;
  /** HOME for a service with an identity of its own (default: its cwd). */
  readonly home?: string;
}

/** The context a command runs in "as" a service: its dir, its environment, and the argv prefix that makes it its user. */
export interface ServiceContext {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly prefix: readonly string[];
}

export type StartResult = { readonly ok: true; readonly pid: number } | { readonly ok: false; readonly message: string };

const PAUSE_CONFIRM_MS = 1000;

interface Live {
  rec: ServiceRecord;
  /** Set when this agent spawned the current process (gives the exit code); null when adopted. */
  child: ChildProcess | null;
  /** Set from the death until the restart's spawn is done: supervision leaves the service alone
   *  meanwhile (its record still names the dead process, which would count as a second death). */
  restartTimer: NodeJS.Timeout | null;
  stopping: boolean;
  crashes: number;
  spawnedAt: number;
}

/** What a service inherits from the agent, its PATH without what its own user cannot search. */
function inheritedBy(inherited: Readonly<Record<string, string | undefined>>, identity: Identity | null): Readonly<Record<string, string | undefined>> {
  return identity && inherited.PATH !== undefined ? { ...inherited, PATH: usablePath(inherited.PATH, identity) } : inherited;
}

export class ProcessRuntime {
  private readonly lives = new Map<string, Live>();
  private readonly persistChains = new Map<string, Promise<void>>();
  private readonly log: (line: string) => void;
  private readonly stopGraceMs: number;
  private readonly inheritedEnv: Readonly<Record<string, string | undefined>>;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private closed = false;

  private readonly journal: SpawnJournal;

  private constructor(private readonly opts: ProcessRuntimeOptions) {
    this.journal = new SpawnJournal(opts.dataDir);
    this.log = opts.log ?? (() => {});
    this.stopGraceMs = opts.stopGraceMs ?? 5000;
    this.inheritedEnv = opts.inheritedEnv ?? process.env;
  }

  /** Load every env's state, adopt what is still alive (and restart what died after being healthy), start supervising. */
  static async open(opts: ProcessRuntimeOptions): Promise<ProcessRuntime> {
    const runtime = new ProcessRuntime(opts);
    for (const rec of await loadAllEnvStates(opts.dataDir, runtime.log)) {
      runtime.lives.set(serviceKey(rec), { rec, child: null, restartTimer: null, stopping: false, crashes: 0, spawnedAt: Date.parse(rec.started_at) || Date.now() });
    }
    await runtime.killOrphans();
    await runtime.tick();
    for (const live of runtime.lives.values()) if (live.rec.state !== 'exited' && !live.restartTimer) runtime.log(`adopted ${serviceKey(live.rec)} (pid ${live.rec.pid})`);
    runtime.timer = setInterval(() => void runtime.tick(), opts.pollMs ?? 500);
    runtime.timer.unref();
    return runtime;
  }

  /**
   * A spawn the previous agent was killed in the middle of (spawn-journal.ts): a process of that
   * service that is not the recorded one was never recorded, and nobody would stop it. Killed,
   * with its process group; the command that spawned it is resumed and starts the service anew.
   */
  private async killOrphans(): Promise<void> {
    for (const id of await this.journal.takeInterrupted()) {
      const recorded = this.lives.get(serviceKey(id))?.rec.pid ?? null;
      for (const group of processGroupsOf(id)) {
        if (group === recorded) continue;
        this.log(`killed ${serviceKey(id)} (process group ${group}): spawned by an agent that was killed before recording it`);
        signalGroup(group, 'SIGKILL');
      }
    }
  }

  /** Stop supervising (timers only): processes keep running, to be adopted by the next runtime. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const live of this.lives.values()) if (live.restartTimer) clearTimeout(live.restartTimer);
  }

  get(id: ServiceIdentity): Readonly<ServiceRecord> | null {
    const live = this.lives.get(serviceKey(id));
    return live ? { ...live.rec } : null;
  }

  /** Every env that has at least one service record. */
  envs(): string[] {
    return [...new Set([...this.lives.values()].map((l) => l.rec.env))];
  }

  /** Every service record of `env` (all versions), oldest start first. */
  list(env: string): Readonly<ServiceRecord>[] {
    return [...this.lives.values()].filter((l) => l.rec.env === env).map((l) => ({ ...l.rec })).sort((a, b) => a.started_at.localeCompare(b.started_at));
  }

  async isAlive(id: ServiceIdentity): Promise<boolean> {
    const live = this.lives.get(serviceKey(id));
    return live !== undefined && (await this.alive(live));
  }

  /** null while the process runs; how it ended otherwise (code null when unknown: adopted, or killed). */
  async exitOf(id: ServiceIdentity): Promise<ServiceExit | null> {
    const live = this.lives.get(serviceKey(id));
    if (!live) return { code: null, signal: null };
    if (live.rec.state === 'exited') return live.rec.exit ?? { code: null, signal: null };
    if (await this.alive(live)) return null;
    return { code: live.child?.exitCode ?? null, signal: live.child?.signalCode ?? null };
  }

  /**
   * Spawn the service in state `starting`, replacing (stopping) any record of the same identity.
   * The caller adopts instead when the existing process is alive and wanted.
   */
  async start(req: StartRequest): Promise<StartResult> {
    const key = serviceKey(req);
    if (this.lives.has(key)) await this.stop(req);
    const { env, version, service, spec, port, datasets } = req;
    const cwd = req.cwd;
    const rec: ServiceRecord = {
      env,
      version,
      service,
      spec,
      port,
      cwd,
      datasets,
      log_path: serviceLogPath(this.opts.dataDir, req),
      log_offset: 0,
      pid: null,
      start_time: null,
      started_at: new Date().toISOString(),
      state: 'starting',
      restarts: 0,
      exit: null,
      identity: req.identity ?? null,
      pid_namespace: req.pidNamespace ?? false,
      siblings: req.siblings ?? {},
      ...(req.home !== undefined ? { home: req.home } : {}),
    };
    const live: Live = { rec, child: null, restartTimer: null, stopping: false, crashes: 0, spawnedAt: Date.now() };
    // Journaled until the record holds the pid: a crash in between leaves no unknown copy behind.
    await this.journal.add(req);
    const ok = await this.spawnInto(live);
    if (!ok.ok) {
      await this.journal.remove(req);
      return ok;
    }
    this.lives.set(key, live);
    this.noticeEnded(live);
    await this.persist(env);
    await this.journal.remove(req);
    return { ok: true, pid: ok.pid };
  }

  /**
   * A process that ended before its live was registered (while it was spawned and settled in)
   * had its 'exit' ignored by onDeath: record it once the live is registered, or a one-shot's
   * record stays `starting` — and a pipeline that saw its exit through exitOf marks it `running` —
   * until the next supervision pass.
   */
  private noticeEnded(live: Live): void {
    const child = live.child;
    if (child && (child.exitCode !== null || child.signalCode !== null)) this.onDeath(live, { code: child.exitCode, signal: child.signalCode });
  }

  /**
   * The live process of `from` becomes the service of version `to` (same env and service): a
   * version whose service is identical to one already serving adopts it instead of replacing it
   * (a snapshot version, a rollback to what runs). Returns false when `from` is unknown.
   */
  async adoptAs(from: ServiceIdentity, to: string): Promise<boolean> {
    const live = this.lives.get(serviceKey(from));
    if (!live || from.version === to) return false;
    const target = { env: from.env, version: to, service: from.service };
    if (this.lives.has(serviceKey(target))) return false;
    live.rec = { ...live.rec, version: to };
    this.lives.delete(serviceKey(from));
    this.lives.set(serviceKey(target), live);
    await this.persist(from.env);
    return true;
  }

  /** The service passed its health check: from now on a crash means restart, not start failure. */
  async markHealthy(id: ServiceIdentity): Promise<void> {
    const live = this.lives.get(serviceKey(id));
    if (!live || live.rec.state !== 'starting') return;
    live.rec.state = 'running';
    await this.persist(id.env);
  }

  /**
   * Stop the service's process group (SIGTERM, SIGKILL after the grace period) and forget it.
   * Idempotent; returns whether a live process was stopped.
   */
  async stop(id: ServiceIdentity): Promise<boolean> {
    const key = serviceKey(id);
    const live = this.lives.get(key);
    if (!live) return false;
    live.stopping = true;
    if (live.restartTimer) clearTimeout(live.restartTimer);
    const pid = live.rec.pid;
    const wasAlive = pid !== null && (await this.alive(live));
    if (pid !== null && wasAlive) {
      const signal = (live.rec.spec.stop_signal ?? 'SIGTERM') as NodeJS.Signals;
      // In a PID namespace the payload (its PID 1) gets the stop signal, as under Docker; the
      // `unshare` parent ignores it. Otherwise the whole process group does.
      const payload = live.rec.pid_namespace ? await payloadPid(pid) : null;
      // PID 1 of a namespace only gets signals it handles: one it would ignore becomes SIGKILL at
      // once instead of a grace period spent waiting for nothing.
      if (payload !== null) signalPid(payload, (await catchesSignal(payload, signal)) ? signal : 'SIGKILL');
      else signalGroup(pid, signal);
      signalGroup(pid, 'SIGCONT'); // a paused process only acts on the signal once continued
      if (!(await this.waitDead(live, live.rec.spec.stop_grace_ms ?? this.stopGraceMs))) {
        if (payload !== null) signalPid(payload, 'SIGKILL'); // ends every process of its namespace
        signalGroup(pid, 'SIGKILL');
        await this.waitDead(live, 2000);
      }
      signalGroup(pid, 'SIGKILL'); // whatever the leader left behind in its group
    }
    if (hasLimits(live.rec.spec.limits)) await removeLimits(key);
    if (this.lives.get(key) === live) this.lives.delete(key);
    await this.persist(id.env);
    return wasAlive;
  }

  /** SIGSTOP every live service of `env`; `paused` counts those confirmed stopped (state T) within 1 s. */
  async pause(env: string): Promise<{ total: number; paused: number }> {
    const targets: Live[] = [];
    for (const live of this.livesOf(env)) if (!live.stopping && live.rec.pid !== null && (await this.alive(live))) targets.push(live);
    return { total: targets.length, paused: await this.stopConfirmed(targets) };
  }

  /** SIGCONT every service of `env` (harmless for those not paused), except held ones. */
  resume(env: string): void {
    for (const live of this.livesOf(env)) if (live.rec.pid !== null && !live.rec.held) signalGroup(live.rec.pid, 'SIGCONT');
  }

  /**
   * Pause one service and keep it paused (verify freezes the agent's service): `resume(env)`
   * leaves it stopped, and the flag is persisted so a restarted agent keeps it too. Idempotent.
   * Returns whether the service was confirmed stopped (false when it is not running).
   */
  async hold(id: ServiceIdentity): Promise<boolean> {
    const live = this.lives.get(serviceKey(id));
    if (!live || live.stopping || live.rec.pid === null || !(await this.alive(live))) return false;
    live.rec.held = true;
    await this.persist(id.env);
    return (await this.stopConfirmed([live])) === 1;
  }

  /** Let the held services of `env` (only `service`'s when given) run again; returns how many were held. */
  async unhold(env: string, service: string | null): Promise<number> {
    const held = this.livesOf(env).filter((l) => l.rec.held && (service === null || l.rec.service === service));
    for (const live of held) {
      live.rec.held = false;
      if (live.rec.pid !== null) signalGroup(live.rec.pid, 'SIGCONT');
    }
    if (held.length > 0) await this.persist(env);
    return held.length;
  }

  /** SIGSTOP each target's process group; how many were confirmed stopped (state T) within 1 s. */
  private async stopConfirmed(targets: readonly Live[]): Promise<number> {
    const signalled = targets.filter((l) => signalGroup(l.rec.pid!, 'SIGSTOP'));
    const deadline = Date.now() + PAUSE_CONFIRM_MS;
    let pending = signalled;
    while (pending.length > 0 && Date.now() < deadline) {
      const states = await Promise.all(pending.map((l) => readProcStat(l.rec.pid!)));
      pending = pending.filter((_, i) => states[i]?.state !== 'T' && states[i]?.state !== 't');
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 1));
    }
    return signalled.length - pending.length;
  }

  /** The working dir, environment and user a command runs with "in the context of" this service. */
  contextOf(rec: Readonly<ServiceRecord>): ServiceContext {
    const identity = rec.identity ?? null;
    return {
      cwd: rec.cwd,
      env: serviceEnvironment(inheritedBy(this.inheritedEnv, identity), rec, rec.spec, rec.port, rec.datasets, rec.siblings ?? {}, identity ? (rec.home ?? rec.cwd) : null),
      prefix: contextArgv([], identity),
    };
  }

  /** Delete the env's state directory. Call after every service of the env is stopped. */
  async forgetEnv(env: string): Promise<void> {
    for (const live of this.livesOf(env)) await this.stop(live.rec);
    await (this.persistChains.get(env) ?? Promise.resolve());
    await removeEnvState(this.opts.dataDir, env);
  }

  /** Stop supervising `env` without touching its processes and forget its state (`separate`):
   *  they keep running, unmanaged. Returns the pids left running. */
  async release(env: string): Promise<number[]> {
    const lives = this.livesOf(env);
    for (const live of lives) {
      if (live.restartTimer) clearTimeout(live.restartTimer);
      this.lives.delete(serviceKey(live.rec));
    }
    await (this.persistChains.get(env) ?? Promise.resolve());
    await removeEnvState(this.opts.dataDir, env);
    return lives.map((l) => l.rec.pid).filter((p): p is number => p !== null);
  }

  private livesOf(env: string): Live[] {
    return [...this.lives.values()].filter((l) => l.rec.env === env);
  }

  private async spawnInto(live: Live): Promise<StartResult> {
    const rec = live.rec;
    const { cwd, env } = this.contextOf(rec);
    // `${DENV_…}` in the command (siblings, datasets) is filled from the service's own environment.
    // Compose: the entrypoint, then the command as its arguments.
    const argv = fillArgv([...(rec.spec.entrypoint ?? []), ...(rec.spec.command ?? [])], env) ?? [];
    const launch = argv.length === 0 ? [] : launchArgv({ argv, identity: rec.identity ?? null, pidNamespace: rec.pid_namespace ?? false });
    let limitDirs: string[] = [];
    if (hasLimits(rec.spec.limits)) {
      try {
        limitDirs = await createLimits(serviceKey(rec), rec.spec.limits);
      } catch (err) {
        return { ok: false, message: messageOf(err) };
      }
    }
    const out = await spawnDetached(launch, cwd, env, rec.log_path);
    if (!out.ok) {
      if (limitDirs.length > 0) await removeLimits(serviceKey(rec));
      return out;
    }
    if (limitDirs.length > 0 && !(await attach(limitDirs, out.pid))) {
      // Never run a service unlimited that asked for limits.
      signalGroup(out.pid, 'SIGKILL');
      await removeLimits(serviceKey(rec)).catch(() => {});
      return { ok: false, message: 'cannot place the process in its cgroup, so its limits would not apply' };
    }
    void out.priority.then((why) => why && this.log(`${serviceKey(rec)}: ${why}`));
    Object.assign(rec, { pid: out.pid, start_time: out.startTime, log_offset: out.logOffset, started_at: new Date().toISOString(), exit: null });
    live.child = out.child;
    live.spawnedAt = Date.now();
    void this.opts.exitReasons?.observe(serviceKey(rec), out.pid).catch(() => {});
    out.child.on('exit', (code, signal) => {
      if (live.child === out.child) this.onDeath(live, { code, signal });
    });
    return { ok: true, pid: out.pid };
  }

  private async alive(live: Live): Promise<boolean> {
    const { pid, start_time } = live.rec;
    if (pid === null) return false;
    if (live.child && live.child.pid === pid) return live.child.exitCode === null && live.child.signalCode === null;
    return isSameProcessAlive(pid, start_time);
  }

  private async waitDead(live: Live, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    const child = live.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // Our own child tells us when it exits; adopted processes are polled below.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    while (await this.alive(live)) {
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    return true;
  }

  /** One supervision pass; never overlaps itself. */
  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      for (const live of [...this.lives.values()]) {
        if (live.stopping || live.restartTimer || live.rec.state === 'exited') continue;
        if (!(await this.alive(live))) this.onDeath(live, { code: live.child?.exitCode ?? null, signal: live.child?.signalCode ?? null });
        else if (await rotateIfLarge(live.rec.log_path, this.opts.logMaxBytes ?? DEFAULT_LOG_MAX_BYTES).catch(() => false)) live.rec.log_offset = 0;
      }
    } finally {
      this.ticking = false;
    }
  }

  private onDeath(live: Live, exit: ServiceExit): void {
    const key = serviceKey(live.rec);
    if (live.stopping || this.closed || this.lives.get(key) !== live || live.restartTimer) return;
    this.recordLastExit(live, exit);
    if (live.rec.state === 'starting') {
      live.rec.state = 'exited';
      live.rec.exit = exit;
      void this.persist(live.rec.env);
      return;
    }
    if (live.rec.state !== 'running') return;
    const policy = live.rec.spec.restart ?? 'always';
    if (policy === 'no' || (policy === 'on-failure' && exit.code === 0)) {
      this.log(`${key} ended (${exit.signal ?? `code ${exit.code ?? 'unknown'}`}); restart: ${policy}, not restarted`);
      live.rec.state = 'exited';
      live.rec.exit = exit;
      void this.persist(live.rec.env);
      return;
    }
    live.crashes = nextCrashCount(live.crashes, Date.now() - live.spawnedAt);
    const delay = restartDelayMs(live.crashes++);
    this.log(`${key} died (${exit.signal ?? `code ${exit.code ?? 'unknown'}`}); restarting in ${delay} ms`);
    live.restartTimer = setTimeout(() => void this.restart(live), delay);
    live.restartTimer.unref();
  }

  /** Keep how the process ended for live status; the reason (OOMKilled …) is filled in when known. */
  private recordLastExit(live: Live, exit: ServiceExit): void {
    const rec = live.rec;
    const pid = rec.pid;
    const last = { ...exit, at: new Date().toISOString(), reason: null };
    rec.last_exit = last;
    const explain = this.opts.exitReasons?.explain(serviceKey(rec), pid, exit);
    void explain
      ?.then((reason) => {
        if (reason && rec.last_exit === last) {
          rec.last_exit = { ...last, reason };
          return this.persist(rec.env);
        }
      })
      .catch(() => {});
  }

  private async restart(live: Live): Promise<void> {
    if (live.stopping || this.closed) {
      live.restartTimer = null;
      return;
    }
    const out = await this.spawnInto(live);
    live.restartTimer = null;
    if (out.ok && live.stopping) {
      signalGroup(out.pid, 'SIGKILL'); // stopped while it was being spawned: nobody would stop it later
      return;
    }
    if (out.ok) {
      live.rec.restarts++;
      this.noticeEnded(live);
      await this.persist(live.rec.env);
    } else {
      this.log(`${serviceKey(live.rec)} restart failed: ${out.message}`);
      this.onDeath(live, { code: null, signal: null });
    }
  }

  /** Write the env's state file; writes are serialised per env (the last wins). A failed write is logged, not thrown. */
  private persist(env: string): Promise<void> {
    const previous = this.persistChains.get(env) ?? Promise.resolve();
    const next = previous.then(() =>
      saveEnvState(
        this.opts.dataDir,
        env,
        this.livesOf(env).map((l) => l.rec),
      ).catch((err: unknown) => this.log(`cannot write state of env ${env}: ${(err as Error).message}`)),
    );
    this.persistChains.set(env, next);
    return next;
  }
}
