/**
 * A real standalone agent process (`bin/denv agent --config agent.yaml`, no control plane) for
 * the docker-runtime tests, with every program it starts recorded (spawn-recorder.cjs), and the
 * clean-up that removes its containers (they outlive the agent by design).
 */
import { killServiceProcesses } from './harness.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { agentTagOf } from '../../src/agent/runtimes/docker/slot.js';
import { spawnDenv, testPortRange, type Child } from './processes.js';

const RECORDER = fileURLToPath(new URL('./spawn-recorder.cjs', import.meta.url));

export interface DockerAgent {
  readonly dir: string;
  readonly dataDir: string;
  /** The tmpfs dir of its env files. */
  readonly envDir: string;
  readonly configFile: string;
  /** Every program it started, one JSON line each. */
  readonly spawnLog: string;
  child: Child;
  /** Its standalone listener. */
  url: string;
  /** SIGKILL and start again on the same data dir and config. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Stop and remove every container an agent (by its data dir) started, then the env networks it made. */
export function removeAgentContainers(dataDir: string): void {
  const label = `label=dev.denv.agent=${agentTagOf(resolve(dataDir))}`;
  const ids = execFileSync('docker', ['ps', '-aq', '--filter', label], { encoding: 'utf8' }).split('\n').filter(Boolean);
  if (ids.length > 0) execFileSync('docker', ['rm', '--force', ...ids], { stdio: 'ignore' });
  const networks = execFileSync('docker', ['network', 'ls', '-q', '--filter', label], { encoding: 'utf8' }).split('\n').filter(Boolean);
  if (networks.length > 0) execFileSync('docker', ['network', 'rm', ...networks], { stdio: 'ignore' });
}

/** Stop a docker test's harness, remove its agent's containers and networks, and delete its dirs. */
export async function closeDockerHarness(h: { close(): Promise<void>; agentDir: string } | undefined, ...dirs: string[]): Promise<void> {
  await h?.close();
  if (h) removeAgentContainers(h.agentDir);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/**
 * `config`: agent.yaml fields; `listen` and `env_dir` are filled in. `files` are written next to
 * the config first (trusted keys: `trusted_keys: [ci.pub]` with `files: {'ci.pub': pem}`).
 * `control`: also connect to a control plane.
 */
export async function startDockerAgent(config: Record<string, unknown>, o: { control?: string; enrollmentKey?: string; name?: string; files?: Record<string, string> } = {}): Promise<DockerAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'denv-docker-agent-'));
  for (const [name, content] of Object.entries(o.files ?? {})) writeFileSync(join(dir, name), content);
  const envDir = mkdtempSync('/dev/shm/denv-test-env-');
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'agent.yaml');
  writeFileSync(configFile, stringify({ listen: '127.0.0.1:0', env_dir: envDir, ...config }));
  const spawnLog = join(dir, 'spawns.jsonl');
  const ports = testPortRange();
  const start = async (key?: string): Promise<{ child: Child; url: string }> => {
    const args = ['agent', '--config', configFile, '--data-dir', dataDir, '--ports', ports];
    if (o.control) args.push('--control', o.control);
    if (key) args.push('--enrollment-key', key);
    if (o.name) args.push('--name', o.name);
    const child = spawnDenv(args, { NODE_OPTIONS: `--require ${RECORDER}`, DENV_SPAWN_LOG: spawnLog });
    const line = await child.waitForOutput(/standalone deploys: POST (http:\/\/[^\s]+)\/deploy/, 60_000);
    return { child, url: /POST (http:\/\/[^\s]+)\/deploy/.exec(line)![1]! };
  };
  const first = await start(o.enrollmentKey);
  const agent: DockerAgent = {
    dir,
    dataDir,
    envDir,
    configFile,
    spawnLog,
    child: first.child,
    url: first.url,
    async restart() {
      await agent.child.kill('SIGKILL');
      const next = await start();
      agent.child = next.child;
      agent.url = next.url;
    },
    async close() {
      await agent.child.kill('SIGTERM');
      killServiceProcesses(dataDir); // the edge relay, when a deploy started one
      removeAgentContainers(dataDir);
      rmSync(dir, { recursive: true, force: true });
      rmSync(envDir, { recursive: true, force: true });
    },
  };
  return agent;
}

/** POST an envelope (or any body) to the agent's /deploy or /preflight. */
export async function post(url: string, path: '/deploy' | '/preflight', body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
