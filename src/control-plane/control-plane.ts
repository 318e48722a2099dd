/**
 * Assembles the control plane: store, HTTP API + agent gateway, phase engine and sweeps.
 * `startControlPlane` is what `denv server` and `denv dev` run, and what tests start.
 */
import { randomUUID } from 'node:crypto';
import { messageOf } from '../contracts/errors.js';
import { VERSION } from '../lib/version.js';
import { ensureAdminToken } from './admin-token.js';
import { createEnrollmentKey } from './auth/enrollment-keys.js';
import { TokenCache } from './api/token-cache.js';
import { buildServer } from './api/server.js';
import { SourceResolver } from './source/source-resolver.js';
import { SpecLoader } from './api/spec-loader.js';
import { StreamHub, type StreamLimits } from './api/stream-hub.js';
import { createBus } from './bus.js';
import { Clouds } from './clouds/clouds.js';
import { AgentGateway, type AdmissionLimits } from './gateway/agent-gateway.js';
import { Engine } from './operations/engine.js';
import { localNotifier, pgNotifier } from './store/notifier.js';
import { openStore } from './store/open-store.js';
import { sweepEmbeddedVacuum } from './store/embedded-vacuum.js';
import { sweepHostHealth } from './sweeps/host-health.js';
import { Sweeper } from './sweeps/sweeper.js';
import { sweepMonitor } from './sweeps/monitor.js';
import { SnapshotRetention } from './sweeps/snapshot-retention.js';
import { DEFAULT_KEEP_SNAPSHOTS } from './retention/keep-set.js';
import { EdgeSweep } from './sweeps/edge-sweep.js';
import { plansSettled, sweepPlanning } from './lifecycle/planner-sweep.js';
import { AwsAccess } from './targets/ecs/aws-access.js';
import type { EcsCredentials } from './targets/ecs/aws-clients.js';
import { sweepEcsStatus } from './targets/ecs/ecs-status-sweep.js';
import { sweepVending } from './targets/ecs/vending-sweep.js';
import { hostPlanner, type Planner } from './lifecycle/planner.js';
import { createControlPlaneMetrics } from './telemetry/prometheus.js';
import { DEFAULT_METRICS_RETENTION_MS, sweepTelemetry } from './telemetry/telemetry-sweep.js';

export interface ControlPlaneOptions {
  /** TCP port (0 = any free port). */
  readonly port: number;
  /** Listen address; 127.0.0.1 unless told otherwise. */
  readonly host?: string;
  /** Holds the embedded database (unless databaseUrl), its lock, and `admin-token`. */
  readonly dataDir: string;
  /** Admit file:// repositories for source deploys (`denv dev`, `denv server --allow-file-repos`). */
  readonly allowFileRepos?: boolean;
  /** A PostgreSQL server URL; absent = embedded PGlite in `<dataDir>/pgdata`. */
  readonly databaseUrl?: string;
  /** Per-phase bound (default 15 min). */
  readonly commandTimeoutMs?: number;
  /** How long a phase waits for its host to (re)connect (default 60 s). */
  readonly agentWaitMs?: number;
  /** How long `join` waits for a provisioned machine's agent to connect (default 6 min, seed 000). */
  readonly joinTimeoutMs?: number;
  /** Heartbeat interval told to agents (default 30 s), and the heartbeat ages after which a host
   *  is degraded (default 2 min) or disconnected (default 10 min). */
  readonly heartbeatMs?: number;
  readonly degradedAfterMs?: number;
  readonly disconnectedAfterMs?: number;
  /** An in-flight command is not re-sent for this long (default 10 min, seed 002). */
  readonly resendAfterMs?: number;
  /** How often agents probe their services for live status (default 10 s). */
  readonly liveStatusMs?: number;
  /** Telemetry: how often agents sample CPU/memory and probe endpoints (default 5 s), how long
   *  samples are kept (default 1 h), and after how many occurrences a recurring error is an
   *  incident (default 5). */
  readonly metricsMs?: number;
  readonly metricsRetentionMs?: number;
  readonly incidentThreshold?: number;
  /** Deployment lease (default 30 s): how soon another control plane resumes a crashed one's work. */
  readonly leaseMs?: number;
  /** The planner for host targets (default: the deterministic host planner). */
  readonly planner?: Planner;
  /** Event streams: open streams per token, bytes queued to a client that does not read (stream-hub.ts). */
  readonly streamLimits?: Partial<StreamLimits>;
  /** `/agent/ws` limits before `welcome` (defaults in agent-gateway.ts). */
  readonly agentAdmission?: Partial<AdmissionLimits>;
  /** Snapshot retention: besides the current version's, the snapshots of this many latest healthy
   *  versions are kept (default 3), plus those forks or unfinished operations need. */
  readonly keepSnapshots?: number;
  /** Edge sweep (sweeps/edge-sweep.ts): how often it looks (default 10 s), retries a degraded env (30 s), re-applies every env on the edge (5 min). */
  readonly edgeSweep?: { readonly everyMs?: number; readonly retryMs?: number; readonly recheckMs?: number };
  /** The operator's AWS credentials (targets/ecs/aws-access.ts): role accounts are assumed with them,
   *  vended accounts created through their AWS Organization. Absent: only accounts with keys. */
  readonly awsOperator?: EcsCredentials | null;
  /** How often the vending sweep asks Organizations how far a new account got (default 10 s). */
  readonly vendingPollMs?: number;
  readonly log?: (line: string) => void;
}

export interface ControlPlane {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The admin token as written to `<dataDir>/admin-token`. */
  readonly adminToken: string;
  /** A new enrollment key for the admin's team (used by `denv dev` for its local agent). */
  createEnrollmentKey(opts?: { expiresInS?: number; singleUse?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const opening = openStore({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, log });
  // Compose documents are loaded in a thread of their own, started by the first deploy.
  const specs = new SpecLoader({ log });
  const store = await opening.catch(async (err: unknown) => {
    await specs.close();
    throw err;
  });
  const { db } = store;
  const bus = createBus();
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const replica = `cp_${randomUUID().slice(0, 8)}`;
  const notifier = opts.databaseUrl ? await pgNotifier(opts.databaseUrl, bus, log) : localNotifier(bus);
  const agents = new AgentGateway({
    db, bus, notifier, replica, heartbeatMs, log,
    liveStatusMs: opts.liveStatusMs ?? 10_000,
    resendAfterMs: opts.resendAfterMs ?? 10 * 60_000,
    metricsMs: opts.metricsMs ?? 5000,
    incidentThreshold: opts.incidentThreshold ?? 5,
    admission: opts.agentAdmission,
  });
  const metrics = createControlPlaneMetrics(db, bus);
  const timed = <T>(name: string, sweep: () => Promise<T>) => metrics.sweeps.wrap(name, sweep);
  // Embedded store: this process is the only control plane, so no host socket is held elsewhere.
  if (!opts.databaseUrl) await db.query('update hosts set connected_to = null');
  // `app` exists once buildServer has run; the clouds ask for its server only after the engine starts.
  const clouds = new Clouds({ db, dataDir: opts.dataDir, log, http: () => app.server, hostChanged: (id) => agents.hostChanged(id) });
  const aws = new AwsAccess(opts.awsOperator ?? null);
  const engine = new Engine({
    db, bus, agents, clouds, aws, log, owner: replica,
    config: {
      commandTimeoutMs: opts.commandTimeoutMs ?? 15 * 60_000,
      agentWaitMs: opts.agentWaitMs ?? 60_000,
      allowFileRepos: opts.allowFileRepos ?? false,
      joinTimeoutMs: opts.joinTimeoutMs ?? 6 * 60_000,
    },
    leaseMs: opts.leaseMs ?? 30_000,
    sweepMs: 1000,
  });
  const admin = await ensureAdminToken(db, opts.dataDir);
  const streams = new StreamHub(opts.streamLimits);
  const keepSnapshots = opts.keepSnapshots ?? DEFAULT_KEEP_SNAPSHOTS;
  const retention = new SnapshotRetention({ db, agents, keepRecent: keepSnapshots, log });
  const edgeSweep = new EdgeSweep({ db, agents, log, retryMs: opts.edgeSweep?.retryMs, recheckMs: opts.edgeSweep?.recheckMs });
  // The API's statements go ahead of background work on the embedded store's one connection (db.ts).
  const sources = new SourceResolver({ dataDir: opts.dataDir, allowFile: opts.allowFileRepos ?? false });
  // One control plane per embedded store (its lock), so token lookups may be remembered (token-cache.ts).
  const tokens = db.dialect === 'pglite' ? new TokenCache() : undefined;
  const app = await buildServer({ db: db.servedFirst(), bus, engine, agents, aws, streams, specs, sources, keepSnapshots, tokens }, { version: VERSION, log, metrics });
  const timings = { degradedAfterMs: opts.degradedAfterMs ?? 120_000, disconnectedAfterMs: opts.disconnectedAfterMs ?? 600_000 };
  const hostHealth = timed('host-health', () => sweepHostHealth(db, timings));
  const healthTimer = setInterval(
    () => void hostHealth().catch((err) => log(`host-health: ${messageOf(err)}`)),
    Math.max(100, Math.min(5000, timings.degradedAfterMs / 4)),
  );
  const sweepers = [
    new Sweeper('monitor', timed('monitor', () => sweepMonitor(db)), 2000, bus, log),
    new Sweeper('planner', timed('planner', () => sweepPlanning({ db, bus, agents, planner: opts.planner ?? hostPlanner, maxAttempts: 3, log })), 1000, bus, log),
    new Sweeper('telemetry', timed('telemetry', () => sweepTelemetry(db, opts.metricsRetentionMs ?? DEFAULT_METRICS_RETENTION_MS)), 30_000, bus, log),
    new Sweeper('snapshot-retention', timed('snapshot-retention', () => retention.sweep()), 2000, bus, log),
    new Sweeper('edge', timed('edge', () => edgeSweep.sweep()), opts.edgeSweep?.everyMs ?? 10_000, bus, log, { kicked: false }),
    new Sweeper('deprovision', timed('deprovision', () => clouds.sweepDeprovision()), 2000, bus, log, { kicked: false }),
    new Sweeper('ecs-status', timed('ecs-status', () => sweepEcsStatus(db, aws, log)), opts.liveStatusMs ?? 10_000, bus, log, { kicked: false }),
    // Woken when an account is added for vending (asked for at once), not by every kick.
    new Sweeper('aws-vending', timed('aws-vending', () => sweepVending(db, aws, log)), opts.vendingPollMs ?? 10_000, bus, log, { kicked: false, wakeOn: 'aws-vending' }),
    // The embedded store has no autovacuum (store/embedded-vacuum.ts); once a minute, as autovacuum looks.
    ...(opts.databaseUrl ? [] : [new Sweeper('embedded-vacuum', timed('embedded-vacuum', () => sweepEmbeddedVacuum(db)), 60_000, bus, log, { kicked: false })]),
  ];
  try {
    await app.listen({ port: opts.port, host: opts.host ?? '127.0.0.1' });
  } catch (err) {
    clearInterval(healthTimer);
    await specs.close();
    await store.close();
    throw err;
  }
  // Machines of a `local` cloud reconnect through the socket file before their work resumes.
  await clouds.resume();
  // Embedded store: the data-dir lock proves no other control plane shares it, so work leased by a
  // killed predecessor is resumed at once rather than after its lease expires.
  await engine.start(!opts.databaseUrl);
  for (const s of sweepers) s.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adminToken: admin.token,
    createEnrollmentKey: async (o = {}) => (await createEnrollmentKey(db, admin.team, o.expiresInS ?? 24 * 3600, o.singleUse ?? true)).key,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(healthTimer);
      retention.stop();
      edgeSweep.stop();
      await Promise.all(sweepers.map((s) => s.stop()));
      await plansSettled();
      await engine.stop();
      metrics.close();
      await agents.closeAll();
      streams.close();
      await notifier.close();
      await clouds.close();
      await app.close();
      await specs.close();
      await store.close();
    },
  };
}
