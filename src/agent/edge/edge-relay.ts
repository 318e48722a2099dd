/**
 * The agent's side of the edge relay (relay-main.ts): one relay process per host, detached, with
 * one stable 127.0.0.1 port per route (from the host's port registry, owner `edge/<route id>`).
 *
 *   route(id, target)  the route's stable port, now forwarding new connections to `target`;
 *                      starts the relay if it is not running; resolves once the port accepts
 *   remove(id)         the route's listener closed (open connections finish), its port released
 *
 * A proxy route points at the stable port once and is never rewritten for a new version: the
 * switch is one file rename here, with no proxy reload (which resets connections on Caddy).
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../../contracts/errors.js';
import { moduleExecArgv, moduleScript } from '../../lib/module-worker.js';
import { Mutex } from '../../lib/mutex.js';
import type { PortRegistry } from '../ports.js';
import { spawnDetached } from '../runtimes/process/spawn-detached.js';
import { listRoutesSync, readRouteSync, routeFile, writeRoute } from './relay-table.js';

/** How long a new listener may take to accept, and a started relay to write its pid. */
const READY_TIMEOUT_MS = 10_000;

export interface RelayedRoute {
  /** The port the proxy dials. */
  readonly listen: number;
  /** The target before this call; null for a new route. */
  readonly previous: number | null;
}

export class EdgeRelay {
  readonly dir: string;
  private readonly mutex = new Mutex();

  constructor(dataDir: string, private readonly ports: PortRegistry, private readonly log: (line: string) => void = () => {}) {
    this.dir = path.join(dataDir, 'edge-relay');
  }

  route(id: string, target: number): Promise<RelayedRoute> {
    return this.mutex.run(async () => {
      const existing = readRouteSync(this.dir, id);
      // An existing route keeps its port: the relay is listening on it, so the registry must not re-allocate it.
      const listen = existing?.listen ?? (await this.ports.allocate(`edge/${id}`));
      if (existing?.target !== target) await writeRoute(this.dir, id, { listen, target });
      const pid = await this.ensureRunning();
      if (!existing) process.kill(pid, 'SIGHUP');
      await waitAccepting(listen, `the edge relay to listen on 127.0.0.1:${listen} for route ${id}`);
      return { listen, previous: existing?.target ?? null };
    });
  }

  /** Whether route `id` is in the table. */
  has(id: string): boolean {
    return readRouteSync(this.dir, id) !== null;
  }

  remove(id: string): Promise<boolean> {
    return this.mutex.run(async () => {
      if (!readRouteSync(this.dir, id)) return false;
      await rm(routeFile(this.dir, id), { force: true });
      const pid = await this.runningPid();
      if (pid !== null) process.kill(pid, listRoutesSync(this.dir).length === 0 ? 'SIGTERM' : 'SIGHUP');
      await this.ports.release(`edge/${id}`);
      return true;
    });
  }

  /**
   * Keep the relay up while it has routes: a relay that died (killed, OOM) is started again
   * within `everyMs`, with every route of the table. Returns the function that stops watching.
   */
  watch(everyMs = 2000): () => void {
    const check = () =>
      void this.mutex
        .run(async () => {
          if (listRoutesSync(this.dir).length > 0 && (await this.runningPid()) === null) {
            this.log('edge relay is not running while it has routes: starting it again');
            await this.ensureRunning();
          }
        })
        .catch((err: unknown) => this.log(`edge relay: ${messageOf(err)}`));
    check();
    const timer = setInterval(check, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The relay's pid when it runs (its pid file names a live relay process). */
  async runningPid(): Promise<number | null> {
    const pid = Number((await readFile(path.join(this.dir, 'relay.pid'), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return cmdline.includes('relay-main') && cmdline.includes(this.dir) ? pid : null;
  }

  private async ensureRunning(): Promise<number> {
    const running = await this.runningPid();
    if (running !== null) return running;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await rm(path.join(this.dir, 'relay.pid'), { force: true });
    // Detached like a service (spawn-detached.ts): it outlives the agent, its output in relay.log.
    const script = moduleScript(import.meta.url, 'relay-main');
    // Nothing of the agent's environment (it may hold provider secrets): the relay needs none of it.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const started = await spawnDetached([process.execPath, ...moduleExecArgv(import.meta.url), script.pathname, this.dir], this.dir, env, path.join(this.dir, 'relay.log'));
    if (!started.ok) throw new Error(`the edge relay ${started.message}`);
    this.log(`edge relay started (pid ${started.pid})`);
    void started.priority.then((why) => why && this.log(`edge relay: ${why}`));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const pid = await this.runningPid();
      if (pid !== null) return pid;
      if (Date.now() > deadline) throw new Error(`the edge relay did not start within ${READY_TIMEOUT_MS / 1000} s (see ${path.join(this.dir, 'relay.log')})`);
      await sleep(20);
    }
  }
}

/** Resolves once 127.0.0.1:`port` accepts a connection (it is closed at once). */
async function waitAccepting(port: number, what: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
