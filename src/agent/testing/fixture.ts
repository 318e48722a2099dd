/**
 * Test support (not used by the agent itself): a real AgentContext on a fresh temp data dir,
 * with its own port range so test files running in parallel never compete for ports, and
 * builders for process services written as inline `node -e` programs.
 */
import { ReleasedEnvs } from '../released-envs.js';
import { ServiceIdentities } from '../identity/service-identities.js';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { HealthSpec, ServiceSpec } from '../../contracts/spec.js';
import type { AgentContext } from '../context.js';
import { CopyDatasetDriver } from '../datasets/copy/copy-driver.js';
import { stopVersionsExcept } from '../envs/stop-services.js';
import { KeyedMutex } from '../../lib/mutex.js';
import { PortRegistry, type PortRange } from '../ports.js';
import { ProcessRuntime } from '../runtimes/process/process-runtime.js';

export interface Fixture {
  readonly ctx: AgentContext;
  readonly dataDir: string;
  readonly log: string[];
  /** A second runtime on the same data dir, as a restarted agent would open it. */
  reopen(): Promise<AgentContext>;
  /** Stop every service this fixture's data dir knows about, close the runtimes, delete the data dir. */
  cleanup(): Promise<void>;
}

export async function makeFixture(ports: PortRange): Promise<Fixture> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'denv-agent-'));
  // Something to probe egress against, like the control plane would be.
  const control = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', () => r()));
  const controlUrl = `http://127.0.0.1:${(control.address() as net.AddressInfo).port}`;
  const log: string[] = [];
  const contexts: AgentContext[] = [];
  const build = async (): Promise<AgentContext> => {
    const runtime = await ProcessRuntime.open({ dataDir, pollMs: 100, stopGraceMs: 2000, log: (l) => log.push(l) });
    const ctx: AgentContext = {
      dataDir,
      control: controlUrl,
      runtime,
      // Supervision tests run services as the agent itself, anywhere (identity and confinement have their own tests).
      workloads: dataDir,
      identities: new ServiceIdentities(dataDir, { processRuntime: 'enabled', runAsRoot: true, allowPaths: ['/'] }, false),
      ports: new PortRegistry(dataDir, ports),
      datasets: new CopyDatasetDriver(path.join(dataDir, 'datasets')),
      envLocks: new KeyedMutex(),
      released: await ReleasedEnvs.open(dataDir),
      log: (l) => log.push(l),
    };
    contexts.push(ctx);
    return ctx;
  };
  const ctx = await build();
  return {
    ctx,
    dataDir,
    log,
    reopen: build,
    async cleanup() {
      const last = contexts[contexts.length - 1]!;
      for (const c of contexts) if (c !== last) c.runtime.close();
      for (const env of last.runtime.envs()) await stopVersionsExcept(last, env, null);
      last.runtime.close();
      control.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An HTTP server on 127.0.0.1:$PORT answering 200 with the request path (and `/env/NAME` with that variable). */
export const HTTP_SERVER = `
const http = require('http');
http.createServer((req, res) => {
  if (req.url.startsWith('/env/')) return res.end(process.env[req.url.slice(5)] ?? '');
  res.end('ok ' + req.url);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));
`;

export const httpHealth = (timeoutMs = 5000, p = '/health'): HealthSpec => ({ kind: 'http', path: p, port: null, timeout_ms: timeoutMs });

/** A process service running `node -e <program>`. */
export function nodeService(program: string, health: HealthSpec, extra: Partial<ServiceSpec> = {}): ServiceSpec {
  return {
    image: null,
    command: [process.execPath, '-e', program],
    entrypoint: null,
    environment: {},
    working_dir: null,
    ports: [],
    volumes: [],
    health,
    ...extra,
  };
}

/** Poll `check` until it holds or `ms` pass. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
