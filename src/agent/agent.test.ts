/**
 * The agent end to end against a stand-in control plane: a real WebSocket server on loopback
 * that speaks protocol.ts and lets each test script its answers.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentMessage, ControlMessage } from '../contracts/protocol.js';
import { startAgent, type AgentHandle } from './agent.js';
import { readProcStat } from './runtimes/process/proc-stat.js';
import { ProcessRuntime } from './runtimes/process/process-runtime.js';
import { HTTP_SERVER, httpHealth, nodeService, until } from './testing/fixture.js';

type Hello = Extract<AgentMessage, { type: 'hello' }>;

class FakeControlPlane {
  readonly wss: WebSocketServer;
  readonly hellos: Hello[] = [];
  readonly received: { conn: number; msg: AgentMessage }[] = [];
  current: WebSocket | null = null;
  connections = 0;
  /** Decides the answer to each hello. */
  onHello: (hello: Hello, n: number) => ControlMessage = (h) => ({ type: 'welcome', host_id: h.host_id ?? 'host_1', credential: h.enrollment_key ? 'cred_secret' : undefined, heartbeat_ms: 50 });

  private constructor(wss: WebSocketServer) {
    this.wss = wss;
    wss.on('connection', (ws) => {
      const conn = ++this.connections;
      this.current = ws;
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as AgentMessage;
        this.received.push({ conn, msg });
        if (msg.type === 'hello') {
          this.hellos.push(msg);
          ws.send(JSON.stringify(this.onHello(msg, this.hellos.length)));
        }
      });
    });
  }

  static async start(): Promise<FakeControlPlane> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/agent/ws' });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    return new FakeControlPlane(wss);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  send(msg: ControlMessage | string): void {
    this.current!.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  results(id: string): { conn: number; msg: AgentMessage }[] {
    return this.received.filter((r) => r.msg.type === 'result' && r.msg.id === id);
  }

  close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    return new Promise((r) => this.wss.close(() => r()));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(enrollmentKey: string | undefined = 'enk_1'): Promise<{ cp: FakeControlPlane; agent: AgentHandle; dataDir: string; log: string[] }> {
  const cp = await FakeControlPlane.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'denv-agentd-'));
  const log: string[] = [];
  const agent = startAgent({ control: cp.url, enrollmentKey, dataDir, name: 'test-host', log: (l) => log.push(l), ports: { min: 24500, max: 24999 } });
  cleanups.push(async () => {
    await agent.close();
    await cp.close();
    // Services outlive the agent by design: stop them through a runtime on the same data dir.
    const runtime = await ProcessRuntime.open({ dataDir });
    for (const env of runtime.envs()) for (const rec of runtime.list(env)) await runtime.stop(rec);
    runtime.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { cp, agent, dataDir, log };
}

const createCommand = (id: string): ControlMessage => ({
  type: 'command',
  id,
  kind: 'env.create',
  payload: { env: 'env_1', version: 'ver_1', services: { web: nodeService(HTTP_SERVER, httpHealth()) }, volumes: [], retire_others: false },
});

describe('startAgent', () => {
  it('enrolls, stores the credential (0600), heartbeats, and reconnects with the credential', async () => {
    const { cp, agent, dataDir } = await setup();
    expect(await agent.hostId).toBe('host_1');
    const hello = cp.hellos[0]!;
    expect(hello).toMatchObject({ protocol: 1, name: 'test-host', enrollment_key: 'enk_1', facts: { runtimes: expect.arrayContaining(['process']), dataset_driver: 'copy', agent_version: '0.1.0', platform: process.platform } });
    expect(hello.credential).toBeUndefined();
    const credFile = path.join(dataDir, 'credential.json');
    expect(JSON.parse(await readFile(credFile, 'utf8'))).toEqual({ host_id: 'host_1', credential: 'cred_secret' });
    expect((await stat(credFile)).mode & 0o777).toBe(0o600);

    await until(() => cp.received.filter((r) => r.msg.type === 'heartbeat').length >= 2);

    cp.current!.terminate();
    await until(() => cp.hellos.length === 2);
    expect(cp.hellos[1]).toMatchObject({ host_id: 'host_1', credential: 'cred_secret' });
    expect(cp.hellos[1]!.enrollment_key).toBeUndefined();
  });

  it('runs commands once per id, re-sends stored results and ignores garbage frames', async () => {
    const { cp, agent, log } = await setup();
    await agent.hostId;
    cp.send('not json at all');
    cp.send({ type: 'surprise' } as unknown as ControlMessage);
    cp.send(createCommand('cmd_1'));
    cp.send(createCommand('cmd_1')); // re-delivered while running: joins
    await until(() => cp.results('cmd_1').length === 1, 10_000);
    const first = cp.results('cmd_1')[0]!.msg;
    expect(first).toMatchObject({ type: 'result', id: 'cmd_1', ok: true, result: { outcome: 'healthy' } });

    cp.send(createCommand('cmd_1')); // re-delivered after it finished: answered from the store
    await until(() => cp.results('cmd_1').length === 2);
    expect(cp.results('cmd_1')[1]!.msg).toEqual(first);
    expect(log.filter((l) => l.startsWith('ignoring'))).toHaveLength(2);
    expect(log.filter((l) => l === 'command cmd_1 env.create started')).toHaveLength(1);
  });

  it('delivers a result that finished while the socket was down after the next welcome', async () => {
    const { cp, agent } = await setup();
    await agent.hostId;
    cp.send(createCommand('cmd_2'));
    cp.current!.terminate();
    // At least once (results are kept until acked, and this fake control plane never acks): a copy
    // arrives on the second connection, whether or not one also made it out on the first.
    await until(() => cp.results('cmd_2').some((r) => r.conn === 2), 15_000);
    const copies = cp.results('cmd_2').map(({ conn: _conn, ...rest }) => JSON.stringify(rest));
    expect(new Set(copies).size).toBe(1);
  });

  it('keeps retrying an enrollment key that is refused until it is accepted', async () => {
    const { cp, agent, log } = await setup();
    cp.onHello = (h, n) => (n < 3 ? { type: 'refused', code: 'UNAUTHORIZED', message: 'unknown enrollment key' } : { type: 'welcome', host_id: 'host_9', credential: 'c9', heartbeat_ms: 1000 });
    expect(await agent.hostId).toBe('host_9');
    expect(cp.hellos.map((h) => h.enrollment_key)).toEqual(['enk_1', 'enk_1', 'enk_1']);
    expect(log).toContain('refused (UNAUTHORIZED): unknown enrollment key');
  });

  it('presents the enrollment key again when the stored credential is refused', async () => {
    const { cp, agent } = await setup();
    await agent.hostId;
    cp.onHello = (h) => (h.credential ? { type: 'refused', code: 'UNAUTHORIZED', message: 'unknown host' } : { type: 'welcome', host_id: 'host_2', credential: 'c2', heartbeat_ms: 1000 });
    cp.current!.terminate();
    await until(() => cp.hellos.length === 3);
    expect(cp.hellos[1]!.credential).toBe('cred_secret');
    expect(cp.hellos[2]!.enrollment_key).toBe('enk_1');
  });

  it('leaves services running when the agent process is SIGKILLed; the next agent adopts them', async () => {
    const { cp, agent, dataDir, log } = await setup();
    await agent.hostId;
    await agent.close(); // this test's first agent is a separate process, started below

    const main = path.join(dataDir, 'agent-main.mts');
    const agentModule = new URL('./agent.ts', import.meta.url).href;
    await writeFile(main, `import { startAgent } from ${JSON.stringify(agentModule)};
startAgent({ control: ${JSON.stringify(cp.url)}, dataDir: ${JSON.stringify(dataDir)}, log: () => {}, ports: { min: 24500, max: 24999 } });`);
    // `node --import tsx`, not the tsx CLI: the CLI runs the program in a grandchild that SIGKILL would miss.
    const repoRoot = new URL('../../', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', main], { cwd: repoRoot, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await until(() => cp.hellos.length === 2, 15_000);
      cp.send(createCommand('cmd_k'));
      await until(() => cp.results('cmd_k').length === 1, 15_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const result = cp.results('cmd_k')[0]!.msg as { result: { services: { web: { pid: number } }; endpoints: { url: string }[] } };
    const pid = result.result.services.web.pid;
    expect(await readProcStat(pid)).not.toBeNull();
    expect((await fetch(result.result.endpoints[0]!.url)).status).toBe(200);

    const again = startAgent({ control: cp.url, dataDir, log: (l) => log.push(l), ports: { min: 24500, max: 24999 } });
    cleanups.push(() => again.close());
    await again.hostId;
    expect(log).toContain(`adopted env_1/ver_1/web (pid ${pid})`);
    cp.send(createCommand('cmd_k2')); // a new id for the same version: adopts, starts nothing
    await until(() => cp.results('cmd_k2').length === 1, 10_000);
    expect(cp.results('cmd_k2')[0]!.msg).toMatchObject({ ok: true, result: { outcome: 'healthy', services: { web: { pid } } } });
  });
});
