/**
 * `denv agent`: the host half of denv. Wires the parts together and owns their lifetime:
 *
 *   data dir (locked: one agent per data dir) → command store (prune records > 24 h)
 *   → process runtime (adopt live services) → commands a restart cut short (interrupted.ts)
 *   → link to the control plane → dispatcher
 *   running commands against the context, with the results not yet acknowledged in its outbox.
 *
 * `close()` ends the link and the agent's timers but never stops services: they keep running
 * and the next agent on the same data dir adopts them.
 */
import { chmod, mkdir, stat } from 'node:fs/promises';
import { ServiceIdentities } from './identity/service-identities.js';
import path from 'node:path';
import { messageOf } from '../contracts/errors.js';
import type { AgentMessage } from '../contracts/protocol.js';
import { defaultAgentConfig, type AgentConfig } from './config/agent-config.js';
import { openPipelineHost } from './pipeline/pipeline-host.js';
import { startStandaloneServer, type StandaloneServer } from './standalone/standalone-server.js';
import { CommandStore } from './commands/command-store.js';
import { createDispatcher, type Dispatcher } from './commands/dispatch.js';
import { recoverInterrupted } from './commands/interrupted.js';
import type { AgentContext } from './context.js';
import { openDatasetDriver } from './datasets/open-driver.js';
import { diskOf, hostFacts } from './facts.js';
import { AgentLink } from './link/link.js';
import { agentSocketUrl } from './link/socket-url.js';
import { KeyedMutex } from '../lib/mutex.js';
import { DEFAULT_PORT_RANGE, PortRegistry, type PortRange } from './ports.js';
import { ReleasedEnvs } from './released-envs.js';
import { answerTransfer, sweepTransfers } from './transfer/transfer-files.js';
import { LiveStatusReporter } from './telemetry/live-status.js';
import { AgentTelemetry } from './telemetry/agent-telemetry.js';
import { ExitReasons } from './telemetry/exit-reasons.js';

/** How often services are probed for live status unless the control plane says otherwise. */
const DEFAULT_LIVE_STATUS_MS = 10_000;
/** A result sent this long ago and still not acknowledged is sent again (checked every heartbeat). */
const RETRANSMIT_AFTER_MS = 5000;
import { ProcessRuntime } from './runtimes/process/process-runtime.js';
import { lockAgentDataDir } from './locks/data-dir-lock.js';

export interface AgentOptions {
  /** http(s)://host:port of the control plane. Absent: standalone mode (only the config's `listen`). */
  control?: string;
  /** The host's agent.yaml, resolved (identity, trusted keys, allowlists, listen, network). Default: no keys, nothing allowed. */
  config?: AgentConfig;
  enrollmentKey?: string;
  dataDir: string;
  /** Default os.hostname(). */
  name?: string;
  log?: (line: string) => void;
  /** Host ports handed to services (default 20000–29999). Agents sharing a machine should get disjoint ranges. */
  ports?: PortRange;
  /** The address other machines reach this host's services at (its own, e.g. a `local` cloud's namespace address); default 127.0.0.1. */
  address?: string;
  /** Dataset root (default `<workloads>/datasets`); on btrfs the btrfs driver is used (facts say which). */
  datasets?: string;
  /** Root of what services reach (work dirs, verify copies); default the config's `workloads`, else `<dataDir>-workloads`. */
  workloads?: string;
  /** Host paths process services may use as working_dir, added to the config's `allow.paths` (`denv dev` allows its own directory). */
  allowPaths?: readonly string[];
  /** false: no docker runtime even where an engine answers (a local cloud's machine: the engine is shared and publishes on this machine's loopback, not the machine's address). */
  docker?: boolean;
}

export interface AgentHandle {
  /** Resolves after the first welcome; rejects if the agent fails to start or is closed before one. */
  readonly hostId: Promise<string>;
  /** The standalone listener's URL once it listens; null when the config has no `listen`. Rejects when it cannot listen. */
  readonly standalone: Promise<string | null>;
  /** Closes the socket, stops timers; does NOT stop services. */
  close(): Promise<void>;
}

/** `<dataDir>-workloads`: beside the agent's data dir (0700), never inside it, so services can reach it. */
export function defaultWorkloads(dataDir: string): string {
  return `${path.resolve(dataDir)}-workloads`;
}

/** Datasets of an agent from before workloads existed (`<dataDir>/datasets`) stay where they are. */
async function legacyDatasets(dataDir: string): Promise<string | null> {
  const dir = path.join(dataDir, 'datasets');
  return (await stat(dir).catch(() => null))?.isDirectory() ? dir : null;
}

function defaultLog(line: string): void {
  process.stderr.write(`${new Date().toISOString()} agent: ${line}\n`);
}

/** Start an agent. Throws at once only for an unusable control URL; everything else is retried or logged. */
export function startAgent(opts: AgentOptions): AgentHandle {
  const log = opts.log ?? defaultLog;
  if (opts.control !== undefined) agentSocketUrl(opts.control); // validate now: a bad URL is a usage error, not something to retry
  const config = opts.config ?? defaultAgentConfig(opts.name);
  const dataDir = path.resolve(opts.dataDir);

  let resolveHostId!: (id: string) => void;
  let rejectHostId!: (err: Error) => void;
  const hostId = new Promise<string>((resolve, reject) => ((resolveHostId = resolve), (rejectHostId = reject)));
  hostId.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
  let resolveStandalone!: (url: string | null) => void;
  let rejectStandalone!: (err: Error) => void;
  const standalone = new Promise<string | null>((resolve, reject) => ((resolveStandalone = resolve), (rejectStandalone = reject)));
  standalone.catch(() => {});
  let server: StandaloneServer | null = null;

  let closed = false;
  let link: AgentLink | null = null;
  let runtime: ProcessRuntime | null = null;
  let liveReporter: LiveStatusReporter | null = null;
  let telemetry: AgentTelemetry | null = null;
  let stopRelayWatch: () => void = () => {};
  let unlock: () => Promise<void> = async () => {};

  const ready = (async () => {
    await mkdir(path.dirname(dataDir), { recursive: true }); // parents as usual: the workloads root beside it must stay reachable
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await chmod(dataDir, 0o700); // its credential, command log and env state are for the agent alone (docs/security.md)
    unlock = await lockAgentDataDir(dataDir);
    const store = new CommandStore(path.join(dataDir, 'commands'), log);
    const pruned = await store.prune();
    if (pruned > 0) log(`pruned ${pruned} stored command results older than 24 h`);
    const staleTransfers = await sweepTransfers(dataDir);
    if (staleTransfers > 0) log(`removed ${staleTransfers} transfer file(s) older than 24 h (an abandoned move)`);
    const exitReasons = new ExitReasons(); // told of every spawn and asked at every death (OOMKilled)
    runtime = await ProcessRuntime.open({ dataDir, log, exitReasons, ...(config.logMaxBytes ? { logMaxBytes: config.logMaxBytes } : {}) });
    if (closed) return;
    const { interrupted, unacked } = await store.recover();
    recoverInterrupted(interrupted, runtime, log);
    if (unacked.length > 0) log(`${unacked.length} command result(s) not acknowledged yet; sending them again once connected`);
    const workloads = path.resolve(opts.workloads ?? config.workloads ?? defaultWorkloads(dataDir));
    await mkdir(workloads, { recursive: true, mode: 0o711 });
    await chmod(workloads, 0o711); // traversable by services' users, not listable
    // `--allow-path` adds to agent.yaml's allow.paths, for process working dirs and container bind mounts alike.
    const allowPaths = [...config.allow.paths, ...(opts.allowPaths ?? []).map((p) => path.resolve(p))];
    const identities = new ServiceIdentities(dataDir, { processRuntime: config.processRuntime, runAsRoot: config.runAsRoot, allowPaths, publishedPorts: config.allow.publishedPorts });
    log(`process services: ${config.processRuntime === 'disabled' ? 'disabled' : identities.switchUsers ? 'each as a user of its own' : `as this agent's user (uid ${process.getuid?.()})`}; workloads in ${workloads}`);
    const datasetsRoot = path.resolve(opts.datasets ?? config.datasets ?? (await legacyDatasets(dataDir)) ?? path.join(workloads, 'datasets'));
    const datasets = await openDatasetDriver(datasetsRoot, log);
    log(`datasets: ${datasets.kind} driver`);
    const ports = new PortRegistry(dataDir, opts.ports ?? DEFAULT_PORT_RANGE);
    const pipeline = await openPipelineHost({ dataDir, config: { ...config, name: opts.name ?? config.name, allow: { ...config.allow, paths: allowPaths } }, ports, log, ...(opts.docker === false ? { docker: null } : {}) });
    const noDocker = opts.docker === false ? 'no docker runtime (--no-docker)' : 'no docker runtime (the engine does not answer)';
    log(`image services: ${pipeline.docker ? `docker engine ${pipeline.docker.engineVersion}` : noDocker}; ${config.trustedKeys.length} trusted key(s)`);
    if (config.listen) {
      server = await startStandaloneServer(pipeline, config.listen).catch((err: unknown) => {
        rejectStandalone(new Error(`cannot listen on ${config.listen!.host}:${config.listen!.port}: ${messageOf(err)}`));
        throw err;
      });
      log(`standalone deploys: POST ${server.url}/deploy and ${server.url}/preflight`);
    }
    resolveStandalone(server?.url ?? null);
    if (opts.control === undefined) return;
    // Sends on whatever link is up; assigned below, before anything can send.
    let sendToControl: (msg: AgentMessage) => boolean = () => false;
    telemetry = new AgentTelemetry(runtime, exitReasons, (msg) => sendToControl(msg), log, pipeline);
    const ctx: AgentContext = {
      dataDir,
      control: opts.control,
      address: opts.address,
      runtime,
      workloads,
      identities,
      pipeline,
      ports,
      datasets,
      envLocks: new KeyedMutex(),
      released: await ReleasedEnvs.open(dataDir),
      telemetry,
      log,
    };
    stopRelayWatch = pipeline.edge.relay.watch();
    // A release interrupted by a crash: the env is recorded as handed over, so stop supervising it.
    for (const env of ctx.released.list()) if (runtime.list(env).length > 0) await runtime.release(env);
    let dispatcher: Dispatcher | null = null;
    // eslint-disable-next-line prefer-const -- assigned once the link exists; used by its callbacks
    let reporter: LiveStatusReporter;
    const activeLink = new AgentLink({
      control: opts.control,
      dataDir,
      name: opts.name ?? config.name,
      enrollmentKey: opts.enrollmentKey,
      facts: hostFacts(datasets.kind, pipeline.docker !== null, pipeline.edge.publicIp, opts.address, datasetsRoot),
      heartbeat: () => ({ disk_free_bytes: diskOf(datasetsRoot).disk_free_bytes }),
      log,
      onWelcome: (id, welcome) => {
        resolveHostId(id);
        dispatcher?.flush();
        reporter.start(welcome.live_status_ms ?? DEFAULT_LIVE_STATUS_MS);
        reporter.resync();
        telemetry?.start({ metricsMs: welcome.metrics_ms, incidentThreshold: welcome.incident_threshold });
      },
      // A removed host: `denv agent` ends with this error if it was never welcomed in this run.
      onRemoved: (message) => rejectHostId(new Error(message)),
      onCommand: (msg) => {
        dispatcher?.dispatch(msg).catch((err: unknown) => log(`command ${msg.id} could not be dispatched: ${messageOf(err)}`));
      },
      onTransfer: (msg) => answerTransfer(dataDir, msg),
      onAck: (id) => {
        dispatcher?.acknowledged(id).catch((err: unknown) => log(`command ${id}: cannot record its acknowledgement: ${messageOf(err)}`));
      },
      onHeartbeat: () => dispatcher?.retransmit(RETRANSMIT_AFTER_MS),
    });
    dispatcher = createDispatcher(ctx, store, (msg) => activeLink.send(msg), unacked);
    reporter = new LiveStatusReporter(ctx, (status) => activeLink.send({ type: 'live_status', ...status, workloads: status.workloads.map((w) => ({ ...w })) }), DEFAULT_LIVE_STATUS_MS);
    sendToControl = (msg) => activeLink.send(msg);
    link = activeLink;
    liveReporter = reporter;
    activeLink.start();
  })().catch((err: unknown) => {
    log(`agent failed to start: ${messageOf(err)}`);
    rejectHostId(err instanceof Error ? err : new Error(messageOf(err)));
    rejectStandalone(err instanceof Error ? err : new Error(messageOf(err)));
  });

  return {
    hostId,
    standalone,
    async close() {
      closed = true;
      await ready;
      await (server as StandaloneServer | null)?.close();
      await (link as AgentLink | null)?.close();
      (runtime as ProcessRuntime | null)?.close();
      liveReporter?.close();
      (telemetry as AgentTelemetry | null)?.close();
      stopRelayWatch();
      await unlock();
      rejectHostId(new Error('agent closed before the control plane welcomed it'));
      rejectStandalone(new Error('agent closed before its standalone listener started'));
    },
  };
}
