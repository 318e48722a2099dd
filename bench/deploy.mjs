#!/usr/bin/env node
// bench/deploy — orchestration overhead of a deploy, against a bare baseline in the same run.
//
//   node bench/deploy.mjs [--runs 20]
//
// Prints, for examples/hello over N runs: the median time from `POST …/deploy` to the deployment
// reading `succeeded` (control plane in this process on embedded PGlite, a real agent process over
// a real WebSocket), the median of a bare baseline (spawn the same server process and poll its
// health until it answers), their difference and ratio. Then the first-start time and RSS of
// `denv dev` on a fresh data dir and on the reused one. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const helloDir = join(root, 'examples', 'hello');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20;
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { parse } = await import('yaml');

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(2);
  }
}
function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    return kb / 1024;
  } catch {
    return 0;
  }
}
function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// ---- denv deploy vs bare baseline --------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-'));
const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), log: () => {} });
const headers = { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/json' };
const api = async (method, path, body) => (await fetch(cp.url + path, { method, headers, body: body && JSON.stringify(body) })).json();
const agent = spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', await cp.createEnrollmentKey(), '--data-dir', join(dir, 'agent'), '--allow-path', helloDir], { stdio: 'ignore' });
await until(async () => (await api('GET', '/v1/hosts')).items.some((h) => h.status === 'connected'), 30_000, 'agent');
await api('POST', '/v1/projects', { name: 'hello' });
const compose = parse(readFileSync(join(helloDir, 'compose.yaml'), 'utf8'));
compose.services.web.working_dir = helloDir;

const denvMs = [];
for (let i = 0; i < runs + 1; i++) {
  compose.services.web.environment = { ...compose.services.web.environment, RUN: String(i) };
  const t0 = performance.now();
  const { deployment } = await api('POST', '/v1/projects/hello/deploy', { compose });
  const done = await until(async () => {
    const d = await api('GET', `/v1/deployments/${deployment.id}`);
    return ['succeeded', 'failed', 'rolled_back'].includes(d.status) && d;
  }, 60_000, 'deployment');
  if (done.status !== 'succeeded') throw new Error(`deployment ${done.id} ${done.status}: ${done.error}`);
  if (i > 0) denvMs.push(performance.now() - t0); // run 0 warms caches
}

const bareMs = [];
for (let i = 0; i < runs + 1; i++) {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, ['server.js'], { cwd: helloDir, env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 10_000, 'bare health');
  if (i > 0) bareMs.push(performance.now() - t0);
  proc.kill('SIGKILL');
}
const [envId] = (await api('GET', '/v1/envs')).items.map((e) => e.id);
agent.kill('SIGTERM');
await cp.close();
// stop the example processes the agent left running (they outlive the agent by design)
try {
  const state = JSON.parse(readFileSync(join(dir, 'agent', 'envs', envId, 'state.json'), 'utf8'));
  for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
} catch {}

const d = median(denvMs);
const b = median(bareMs);
console.log(`deploy of examples/hello, median of ${runs} runs`);
console.log(`  denv API → succeeded   ${d.toFixed(1)} ms`);
console.log(`  bare spawn → healthy   ${b.toFixed(1)} ms`);
console.log(`  overhead               ${(d - b).toFixed(1)} ms   (target < 150 ms)`);
console.log(`  ratio                  ${(d / b).toFixed(2)}`);

// ---- denv dev: first start and RSS -----------------------------------------------------------
async function devStart(dataDir) {
  const port = await freePort();
  const t0 = performance.now();
  const dev = spawn(process.execPath, [bin, 'dev', '--port', String(port), '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  dev.stdout.on('data', (c) => (out += c));
  dev.stderr.on('data', (c) => (out += c));
  await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000, 'denv dev healthz');
  const ready = performance.now() - t0;
  await until(async () => /https?:\/\/127\.0\.0\.1:\d+/.test(out) && /succeeded/.test(out), 60_000, `example deployed:\n${out}`);
  const deployed = performance.now() - t0;
  await sleep(500);
  const rss = rssMiB(dev.pid) + childPids(dev.pid).reduce((sum, pid) => sum + rssMiB(pid), 0);
  const rssCp = rssMiB(dev.pid);
  dev.kill('SIGINT');
  await new Promise((r) => dev.once('exit', r));
  return { ready, deployed, rss, rssCp };
}
const devDir = join(dir, 'dev');
const fresh = await devStart(devDir);
const reused = await devStart(devDir);
try {
  for (const file of ['envs']) {
    const envs = (await import('node:fs')).readdirSync(join(devDir, 'agent', file));
    for (const e of envs) {
      const state = JSON.parse(readFileSync(join(devDir, 'agent', file, e, 'state.json'), 'utf8'));
      for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
    }
  }
} catch {}
console.log('denv dev start (healthz / example succeeded / RSS control plane + agent)');
console.log(`  fresh data dir   ${fresh.ready.toFixed(0)} ms / ${fresh.deployed.toFixed(0)} ms / ${fresh.rss.toFixed(0)} MiB (control plane ${fresh.rssCp.toFixed(0)} MiB)`);
console.log(`  reused data dir  ${reused.ready.toFixed(0)} ms / ${reused.deployed.toFixed(0)} ms / ${reused.rss.toFixed(0)} MiB (control plane ${reused.rssCp.toFixed(0)} MiB)`);
rmSync(dir, { recursive: true, force: true });
