/**
 * The client commands end to end: the real `denv` entry point (run with tsx as a child process)
 * against a local HTTP server that speaks the API contract of DESIGN §11.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Host } from '../contracts/domain.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const TOKEN = 'tok_admin_test';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let server: Server;
let url = '';
let tmp = '';
let dataDir = '';
const requests: { method: string; url: string; body: unknown; auth: string | undefined }[] = [];
let projectExists = false;

const t0 = '2025-01-01T00:00:00.000Z';
function deployment(id: string, status: Deployment['status'], error: string | null = null): Deployment {
  const done = status !== 'running';
  return {
    id,
    kind: 'deploy',
    env: 'env_1',
    status,
    error,
    created_at: t0,
    finished_at: done ? '2025-01-01T00:00:02.000Z' : null,
    phases: [
      { name: 'resolve', status: 'ok', evidence: { version: 'ver_1', number: 1 }, started_at: t0, finished_at: '2025-01-01T00:00:00.012Z' },
      {
        name: 'prepare',
        status: !done ? 'running' : error ? 'failed' : 'ok',
        evidence: error ? { error: 'unhealthy' } : { endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001' }] },
        started_at: '2025-01-01T00:00:00.012Z',
        finished_at: done ? '2025-01-01T00:00:00.424Z' : null,
      },
      { name: 'verdict', status: done ? 'ok' : 'pending', evidence: null, started_at: null, finished_at: null },
    ],
  };
}
const env: Env = {
  id: 'env_1',
  name: 'production',
  project: 'prj_1',
  stage: 'production',
  status: 'running',
  current_version: 'ver_1',
  parent_version: null,
  host: 'host_1',
  endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001' }],
  last_error: null,
  created_at: t0,
};
const host: Host = {
  id: 'host_1',
  name: 'laptop',
  team: 'team_1',
  kind: 'sidecar',
  status: 'connected',
  facts: { hostname: 'laptop', platform: 'linux', arch: 'x64', runtimes: ['process', 'docker'], dataset_driver: 'copy', agent_version: '0.1.0' },
  last_heartbeat_at: new Date().toISOString(),
  created_at: t0,
};

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function route(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  const u = new URL(req.url ?? '/', 'http://x');
  const key = `${req.method} ${u.pathname}`;
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'bad token' } });
  switch (key) {
    case 'GET /v1/projects/hello':
      return projectExists ? json(res, 200, { id: 'prj_1', name: 'hello' }) : json(res, 404, { error: { code: 'NOT_FOUND', message: 'no project hello' } });
    case 'POST /v1/projects':
      projectExists = true;
      return json(res, 201, { id: 'prj_1', name: 'hello' });
    case 'POST /v1/projects/hello/deploy':
      return json(res, 202, { deployment: deployment('dep_ok', 'running'), env });
    case 'GET /v1/deployments/dep_ok/stream':
    case 'GET /v1/deployments/dep_bad/stream': {
      const id = u.pathname.split('/')[3]!;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: deployment\ndata: ${JSON.stringify(deployment(id, 'running'))}\n\n`);
      const final = id === 'dep_ok' ? deployment(id, 'succeeded') : deployment(id, 'rolled_back', 'prepare: unhealthy');
      res.end(`event: deployment\ndata: ${JSON.stringify(final)}\n\nevent: end\ndata: {}\n\n`);
      return;
    }
    case 'GET /v1/deployments/dep_ok':
      return json(res, 200, deployment('dep_ok', 'succeeded'));
    case 'GET /v1/deployments':
      return json(res, 200, { items: [deployment('dep_ok', 'succeeded')], next: 'cursor_2' });
    case 'GET /v1/hosts':
      return json(res, 200, { items: [host], next: null });
    case 'GET /v1/envs':
      return json(res, 200, { items: [env], next: null });
    case 'GET /v1/envs/env_1':
      return json(res, 200, env);
    case 'GET /v1/events':
      return json(res, 200, {
        items: [{ id: 7, subject: u.searchParams.get('subject'), type: 'deployment.finished', data: { status: 'succeeded', took_ms: 2000 }, at: t0 }],
        next: null,
      });
    default:
      return json(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${key}` } });
  }
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'denv-cli-'));
  dataDir = path.join(tmp, 'data');
  await mkdir(dataDir);
  await writeFile(path.join(dataDir, 'admin-token'), `${TOKEN}\n`);
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', body, auth: req.headers.authorization });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(tmp, { recursive: true, force: true });
});

function denv(args: readonly string[], cwd = tmp): Promise<Run> {
  const env = { ...process.env };
  for (const k of ['DENV_URL', 'DENV_PORT', 'DENV_DATA_DIR', 'DENV_TOKEN', 'DENV_PROJECT']) delete env[k];
  return new Promise((resolve) => {
    execFile(TSX, [MAIN, ...args], { cwd, env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('denv client commands', () => {
  it('deploy creates the project, sends absolute working dirs and watches to success', async () => {
    const app = path.join(tmp, 'app');
    await mkdir(app);
    await writeFile(path.join(app, 'compose.yaml'), 'services:\n  web:\n    command: ["node", "server.js"]\n    working_dir: .\n');
    const run = await denv(['--url', url, '--data-dir', dataDir, 'deploy', '-f', 'app/compose.yaml', '--project', 'hello', '--watch']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('deployment dep_ok (deploy) started on env production (env_1)');
    expect(run.stdout).toContain('  ✓ prepare   412 ms  endpoints=web→http://127.0.0.1:20001');
    expect(run.stdout.trimEnd().endsWith('succeeded in 2.0 s')).toBe(true);
    const deploy = requests.find((r) => r.method === 'POST' && r.url === '/v1/projects/hello/deploy');
    expect(deploy?.body).toEqual({ compose: { services: { web: { command: ['node', 'server.js'], working_dir: app } } }, env: 'production' });
    expect(requests.find((r) => r.method === 'POST' && r.url === '/v1/projects')?.body).toEqual({ name: 'hello' });
  });

  it('deployment watch exits 1 for a rolled-back deployment and prints the error', async () => {
    const run = await denv(['--url', url, '--token', TOKEN, 'deployment', 'watch', 'dep_bad']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  ✗ prepare');
    expect(run.stdout).toContain('rolled_back in 2.0 s: prepare: unhealthy');
  });

  it('deployment watch --json prints only the final deployment', async () => {
    const run = await denv(['--url', url, '--token', TOKEN, 'deployment', 'watch', 'dep_ok', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'dep_ok', status: 'succeeded' });
  });

  it('global options work after the subcommand too, and the token comes from DENV_DATA_DIR', async () => {
    const run = await denv(['hosts', '--url', url, '--data-dir', dataDir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ID\s+NAME\s+STATUS\s+HEARTBEAT\s+RUNTIMES\nhost_1\s+laptop\s+connected\s+\ds ago\s+process,docker\n$/);
  });

  it('lists deployments, envs and events, as tables or JSON', async () => {
    const deps = await denv(['--url', url, '--token', TOKEN, 'deployments']);
    expect(deps.stdout).toMatch(/dep_ok\s+deploy\s+env_1\s+succeeded/);
    expect(deps.stderr).toContain('more: add --after cursor_2');
    const envs = await denv(['--url', url, '--token', TOKEN, 'env', 'ls', '--json']);
    expect(JSON.parse(envs.stdout)).toEqual({ items: [env], next: null });
    const show = await denv(['--url', url, '--token', TOKEN, 'env', 'show', 'env_1']);
    expect(show.stdout).toContain('endpoints:  web → http://127.0.0.1:20001');
    const events = await denv(['--url', url, '--token', TOKEN, 'events', '--subject', 'dep:dep_ok', '--after', '3']);
    expect(events.stdout).toMatch(/7\s+2025-01-01T00:00:00.000Z\s+deployment.finished\s+status=succeeded took_ms=2000/);
    expect(requests.some((r) => r.url === '/v1/events?subject=dep%3Adep_ok&after=3')).toBe(true);
  });

  it('prints API errors as error (CODE): message', async () => {
    const run = await denv(['--url', url, '--token', 'wrong', 'hosts']);
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: 'error (UNAUTHORIZED): bad token\n' });
  });

  it('reports a control plane that is not running', async () => {
    const run = await denv(['--port', '1', '--token', TOKEN, 'hosts']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error (UNREACHABLE): cannot reach the control plane at http://127.0.0.1:1: is `denv dev` or `denv server` running?\n');
  });

  it('explains a missing token', async () => {
    const run = await denv(['--url', url, '--data-dir', path.join(tmp, 'nowhere'), 'hosts']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \(UNAUTHORIZED\): no API token: pass --token or set DENV_TOKEN/);
  });
});
