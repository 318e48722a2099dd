/**
 * Assembles the control plane: store, HTTP API + agent gateway, phase engine and sweeps.
 * `startControlPlane` is what `denv server` and `denv dev` run, and what tests start.
 */
import { mkdirSync } from 'node:fs';
import { messageOf } from '../contracts/errors.js';
import { VERSION } from '../lib/version.js';
import { ensureAdminToken } from './admin-token.js';
import { createEnrollmentKey } from './api/hosts.js';
import { buildServer } from './api/server.js';
import { createBus } from './bus.js';
import { AgentGateway } from './gateway/agent-gateway.js';
import { Engine } from './operations/engine.js';
import { openStore } from './store/open-store.js';
import { sweepHostHealth } from './sweeps/host-health.js';

export interface ControlPlaneOptions {
  /** TCP port (0 = any free port). */
  readonly port: number;
  /** Listen address; 127.0.0.1 unless told otherwise. */
  readonly host?: string;
  /** Holds the embedded database (unless databaseUrl), its lock, and `admin-token`. */
  readonly dataDir: string;
  /** A PostgreSQL server URL; absent = embedded PGlite in `<dataDir>/pgdata`. */
  readonly databaseUrl?: string;
  /** Per-phase bound (default 15 min). */
  readonly commandTimeoutMs?: number;
  /** How long a phase waits for its host to (re)connect (default 60 s). */
  readonly agentWaitMs?: number;
  /** Heartbeat interval told to agents (default 30 s), and the heartbeat ages after which a host
   *  is degraded (default 2 min) or disconnected (default 10 min). */
  readonly heartbeatMs?: number;
  readonly degradedAfterMs?: number;
  readonly disconnectedAfterMs?: number;
  /** Deployment lease (default 30 s): how soon another control plane resumes a crashed one's work. */
  readonly leaseMs?: number;
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
  mkdirSync(opts.dataDir, { recursive: true });
  const store = await openStore({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl });
  const { db } = store;
  const bus = createBus();
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const agents = new AgentGateway({ db, bus, heartbeatMs, log });
  const engine = new Engine({
    db, bus, agents, log,
    config: { commandTimeoutMs: opts.commandTimeoutMs ?? 15 * 60_000, agentWaitMs: opts.agentWaitMs ?? 60_000 },
    leaseMs: opts.leaseMs ?? 30_000,
    sweepMs: 1000,
  });
  const admin = await ensureAdminToken(db, opts.dataDir);
  const app = await buildServer({ db, bus, engine, agents }, { version: VERSION, log });
  const timings = { degradedAfterMs: opts.degradedAfterMs ?? 120_000, disconnectedAfterMs: opts.disconnectedAfterMs ?? 600_000 };
  const healthTimer = setInterval(
    () => void sweepHostHealth(db, timings).catch((err) => log(`host-health: ${messageOf(err)}`)),
    Math.max(100, Math.min(5000, timings.degradedAfterMs / 4)),
  );
  try {
    await app.listen({ port: opts.port, host: opts.host ?? '127.0.0.1' });
  } catch (err) {
    clearInterval(healthTimer);
    await store.close();
    throw err;
  }
  // Embedded store: the data-dir lock proves no other control plane shares it, so work leased by a
  // killed predecessor is resumed at once rather than after its lease expires.
  await engine.start(!opts.databaseUrl);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adminToken: admin.token,
    createEnrollmentKey: async (o = {}) => (await createEnrollmentKey(db, admin.team, o.expiresInS ?? 24 * 3600, o.singleUse ?? false)).key,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(healthTimer);
      await engine.stop();
      agents.closeAll();
      await app.close();
      await store.close();
    },
  };
}
