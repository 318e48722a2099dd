/**
 * The `docker` runtime's executor: runs the argv that `docker-argv.ts` builds (through
 * `lib/exec.ts`, never a shell) and asks the Engine API read-only questions. It knows nothing of
 * envelopes, ports or records; the pipeline decides what to run and when.
 *
 * `detect()` answers null when the engine does not answer: the agent then reports no `docker`
 * runtime and refuses image services with a clear error. Compose is looked for on first use (the
 * Python docker-compose takes most of a second of CPU just to print its version, and most agents
 * start many times more often than they deploy an image); without one, deploys fail at recreate
 * and preflight fails at `runtime`, saying so.
 */
import { DenvError } from '../../../contracts/errors.js';
import { run, runOrThrow } from '../../../lib/exec.js';
import { detectComposeCli, type ComposeCli } from './compose-cli.js';
import {
  composeDownArgv,
  composeUpArgv,
  dockerLogsArgv,
  dockerNetworkCreateArgv,
  dockerNetworkRmArgv,
  dockerPauseArgv,
  dockerPullArgv,
  dockerUnpauseArgv,
} from './docker-argv.js';
import { EngineApi, socketPathFrom, type ContainerState, type ImageInfo } from './engine-api.js';

/** Pulls and compose runs are bounded (a registry that hangs must not hold a slot's lock forever). */
const PULL_TIMEOUT_MS = 10 * 60_000;
const COMPOSE_TIMEOUT_MS = 5 * 60_000;

export class DockerRuntime {
  private composeCli: Promise<ComposeCli | null> | null;

  constructor(
    readonly engine: EngineApi,
    readonly engineVersion: string,
    compose?: ComposeCli,
  ) {
    this.composeCli = compose ? Promise.resolve(compose) : null;
  }

  static async detect(env: Readonly<Record<string, string | undefined>> = process.env): Promise<DockerRuntime | null> {
    const socket = socketPathFrom(env);
    if (!socket) return null;
    const engine = new EngineApi(socket);
    const version = await engine.version();
    return version ? new DockerRuntime(engine, version) : null;
  }

  /** The Compose to run (found once, on first use); throws AGENT_ERROR when none is installed. */
  async compose(): Promise<ComposeCli> {
    this.composeCli ??= detectComposeCli();
    const cli = await this.composeCli;
    if (!cli) {
      this.composeCli = null; // installed later: look again next time
      throw new DenvError('AGENT_ERROR', 'no Docker Compose on this host: neither `docker compose` nor `docker-compose` answers `version`');
    }
    return cli;
  }

  /** Whether the engine answers right now. */
  async ping(): Promise<boolean> {
    return (await this.engine.version()) !== null;
  }

  /** `docker pull <ref>`; the message carries docker's last stderr line on failure. */
  async pull(ref: string): Promise<{ ok: true } | { ok: false; message: string }> {
    const r = await run(dockerPullArgv(ref), { timeoutMs: PULL_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
    if (r.exitCode === 0) return { ok: true };
    const said = r.stderr.trim().split('\n').slice(-1)[0] ?? '';
    return { ok: false, message: r.timedOut ? `docker pull timed out after ${PULL_TIMEOUT_MS} ms` : `docker pull exited ${r.exitCode ?? r.signal}${said ? `: ${said}` : ''}` };
  }

  image(ref: string): Promise<ImageInfo | null> {
    return this.engine.image(ref);
  }

  /** `compose up --detach`; throws ExecError (argv, exit, stderr) when Compose fails. */
  async up(project: string, file: string): Promise<void> {
    await runOrThrow(composeUpArgv(await this.compose(), project, file), { timeoutMs: COMPOSE_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  }

  /** `compose down`: stops and removes the project's containers. */
  async down(project: string, file: string): Promise<void> {
    await runOrThrow(composeDownArgv(await this.compose(), project, file), { timeoutMs: COMPOSE_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  }

  /** The container Compose runs for `service` in `project` (the newest when several exist), or null. */
  async container(project: string, service: string): Promise<ContainerState | null> {
    const ids = await this.engine.containerIds([`com.docker.compose.project=${project}`, `com.docker.compose.service=${service}`]);
    const states = (await Promise.all(ids.map((id) => this.engine.container(id)))).filter((c): c is ContainerState => c !== null);
    states.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    return states[0] ?? null;
  }

  /**
   * Create the bridge network `name` unless it exists. Idempotent and safe to race: the slots of
   * one env deploy in parallel and each ensures the env's network; "already exists" is success.
   */
  async ensureNetwork(name: string, labels: Readonly<Record<string, string>>): Promise<'created' | 'exists'> {
    const r = await run(dockerNetworkCreateArgv(name, labels), { timeoutMs: 30_000, maxOutputBytes: 16 * 1024 });
    if (r.exitCode === 0) return 'created';
    if (/already exists/i.test(r.stderr)) return 'exists';
    throw new DenvError('AGENT_ERROR', `docker network create ${name} exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
  }

  /** Remove the network `name`; false when there was none. Throws when it still has containers attached. */
  async removeNetwork(name: string): Promise<boolean> {
    const r = await run(dockerNetworkRmArgv(name), { timeoutMs: 30_000, maxOutputBytes: 16 * 1024 });
    if (r.exitCode === 0) return true;
    if (/not found|no such network/i.test(r.stderr)) return false;
    throw new DenvError('AGENT_ERROR', `docker network rm ${name} exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
  }

  async pause(containers: readonly string[]): Promise<void> {
    if (containers.length > 0) await runOrThrow(dockerPauseArgv(containers), { timeoutMs: 30_000 });
  }

  async unpause(containers: readonly string[]): Promise<void> {
    if (containers.length > 0) await runOrThrow(dockerUnpauseArgv(containers), { timeoutMs: 30_000 });
  }

  /** The last `lines` lines the container printed (stdout and stderr, timestamped); [] when they cannot be read. */
  async logs(container: string, lines = 20): Promise<string[]> {
    try {
      const r = await run(dockerLogsArgv(container, lines), { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });
      // docker splits stdout and stderr; the RFC 3339 timestamps put them back in order.
      return `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.trim() !== '').sort().slice(-lines);
    } catch {
      return [];
    }
  }
}
