/**
 * A control plane (in this process, on a fresh store) and one real agent process enrolled with
 * it over a real WebSocket. Timings are shortened so host-status tests take seconds.
 * `close()` stops both and kills every service process the agent started (they outlive the
 * agent by design, so a test must not leave them behind).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from './api.js';
import { startAgentProcess, testPortRange, type Child } from './processes.js';
import { freshDataDir, storeOptions, type StoreKind } from './stores.js';

export interface Harness {
  readonly cp: ControlPlane;
  readonly api: Api;
  readonly dataDir: string;
  readonly agentDir: string;
  /** The agent's port range (reuse it when restarting the agent on the same data dir). */
  readonly ports: string;
  agent: Child;
  readonly hostId: string;
  /** Kill (SIGKILL) and restart the agent process on the same data dir; resolves once it is connected again. */
  restartAgent(): Promise<void>;
  close(): Promise<void>;
}

export const FAST_TIMINGS: Partial<ControlPlaneOptions> = {
  heartbeatMs: 500,
  degradedAfterMs: 2000,
  disconnectedAfterMs: 4000,
  commandTimeoutMs: 60_000,
  agentWaitMs: 15_000,
  leaseMs: 3000,
};

/** pids of every service process recorded in an agent data dir (not those it handed over by `separate`). */
export function agentServicePids(agentDir: string): number[] {
  const pids: number[] = [];
  let envs: string[] = [];
  try {
    envs = readdirSync(join(agentDir, 'envs'));
  } catch {
    return pids;
  }
  for (const env of envs) {
    try {
      const state = JSON.parse(readFileSync(join(agentDir, 'envs', env, 'state.json'), 'utf8')) as { services: { pid: number | null }[] };
      for (const s of state.services) if (s.pid) pids.push(s.pid);
    } catch {
      /* no state */
    }
  }
  return pids;
}

/** pids of the workloads an agent handed over by `separate` (its `released.json`). */
export function releasedPids(agentDir: string): number[] {
  try {
    const released = JSON.parse(readFileSync(join(agentDir, 'released.json'), 'utf8')) as Record<string, { pids: number[] }>;
    return Object.values(released).flatMap((r) => r.pids);
  } catch {
    return [];
  }
}

/** The agent's edge relay (src/agent/edge/relay-main.ts), when it started one. */
export function relayPids(agentDir: string): number[] {
  try {
    return [Number(readFileSync(join(agentDir, 'edge-relay', 'relay.pid'), 'utf8').trim())].filter((p) => p > 0);
  } catch {
    return [];
  }
}

/** Kill every service process the agent started, including those it handed over, and its edge relay. */
export function killServiceProcesses(agentDir: string): void {
  for (const pid of [...agentServicePids(agentDir), ...releasedPids(agentDir), ...relayPids(agentDir)]) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

export async function connectedHostCount(api: Api): Promise<number> {
  const { body } = await api.get('/v1/hosts');
  return (body.items as { status: string }[]).filter((h) => h.status === 'connected').length;
}

/** `datasets`: the agent's dataset root (e.g. a btrfs mount); default `<agent data dir>/datasets`. */
/** `agentConfig`: the agent's agent.yaml (keys, allowlists, network) for signed image deploys. */
export async function startHarness(o: { store?: StoreKind; cp?: Partial<ControlPlaneOptions>; datasets?: string; agentConfig?: string; agentEnv?: Record<string, string> } = {}): Promise<Harness> {
  const dataDir = freshDataDir();
  const agentDir = join(dataDir, 'agent');
  const cp = await startControlPlane({ port: 0, ...(await storeOptions(o.store ?? 'pglite', join(dataDir, 'cp'))), ...FAST_TIMINGS, ...o.cp, log: () => {} });
  const api = new Api(cp.url, cp.adminToken);
  const key = await cp.createEnrollmentKey();
  const ports = testPortRange();
  let agent = startAgentProcess({ control: cp.url, enrollmentKey: key, dataDir: agentDir, name: 'test-host', ports, datasets: o.datasets, config: o.agentConfig, env: o.agentEnv });
  const hostId = await waitFor(async () => {
    const { body } = await api.get('/v1/hosts');
    return (body.items as { id: string; status: string }[]).find((h) => h.status === 'connected')?.id;
  }, 30_000, 'the agent to connect');
  // The API lists the host once it is welcomed; the agent stores its credential a moment later.
  // Wait for that, so an agent killed and restarted at once (restartAgent) can come back.
  await agent.waitForOutput(/welcomed as \S+ \(credential stored\)/, 30_000);
  const h: Harness = {
    cp, api, dataDir, agentDir, hostId, ports,
    get agent() {
      return agent;
    },
    set agent(a) {
      agent = a;
    },
    async restartAgent() {
      await agent.kill('SIGKILL');
      agent = startAgentProcess({ control: cp.url, dataDir: agentDir, name: 'test-host', ports, datasets: o.datasets, config: o.agentConfig, env: o.agentEnv });
      // Welcomed again under its own host id (with its stored credential); a failed reconnect fails the test.
      await agent.waitForOutput(new RegExp(`welcomed as ${hostId}\\b`), 30_000);
    },
    async close() {
      await agent.kill('SIGTERM');
      killServiceProcesses(agentDir);
      await cp.close();
    },
  };
  return h;
}
