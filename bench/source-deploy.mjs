#!/usr/bin/env node
// bench/source-deploy — from a git push to the new commit answering HTTP (issue 13).
//
//   node bench/source-deploy.mjs [--runs 5]
//
// A Node app whose dependency npm installs from the repository itself (offline: `npm ci
// --offline`, no registry), in a bare repository on disk (file://). A control plane in this
// process (embedded PGlite, --allow-file-repos) and a real agent process. Prints the medians of:
//   push → serving    commit, push, POST the signed GitHub push webhook, until the env's endpoint
//                     answers with the new commit's text (fetch, checkout, npm ci, start, health,
//                     the phases around them);
//   cached redeploy   the same commit deployed again through the API: the build is reused;
//   by hand           the same work done directly in the same run: git clone, npm ci, start node,
//                     poll until it answers;
// and the ratios against "by hand". Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { runOrThrow } = await import(join(root, 'dist', 'lib', 'exec.js'));
const { sign } = await import('@octokit/webhooks-methods');
const { freePort, median, until } = await import('./helpers.mjs');

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.test', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.test', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = async (cwd, ...args) => (await runOrThrow(['git', ...args], { cwd, env: GIT_ENV })).stdout.trim();
const write = (dir, files) => {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
};

// ---- the repository --------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-source-'));
chmodSync(dir, 0o711); // services run as users of their own and must reach their directories below it
const work = join(dir, 'work');
const bare = join(dir, 'app.git');
await git(dir, 'init', '-q', '-b', 'main', work);
write(work, {
  'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
  'vendor/greet/index.js': "module.exports = () => require('fs').readFileSync('message.txt', 'utf8');\n",
  'package.json': JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { greet: 'file:./vendor/greet' } }),
  'server.js': "require('node:http').createServer((req, res) => res.end(req.url === '/healthz' ? 'ok' : require('greet')())).listen(Number(process.env.PORT), '127.0.0.1');\n",
  'compose.yaml': 'services:\n  web:\n    command: ["node", "server.js"]\n    x-denv:\n      build: ["npm", "ci", "--offline", "--no-audit", "--no-fund"]\n      health:\n        path: /healthz\n',
  'message.txt': 'run 0',
});
await runOrThrow(['npm', 'install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'], { cwd: work });
await git(work, 'add', '-A');
await git(work, 'commit', '-q', '-m', 'app');
await git(dir, 'clone', '-q', '--bare', work, bare);

// ---- denv: push → serving, cached redeploy ---------------------------------------------------
const SECRET = 'bench-webhook-secret-0123';
const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), allowFileRepos: true, log: () => {} });
const headers = { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/json' };
const api = async (method, path, body) => (await fetch(cp.url + path, { method, headers, body: body && JSON.stringify(body) })).json();
const agent = spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', await cp.createEnrollmentKey(), '--data-dir', join(dir, 'agent')], { stdio: 'ignore' });
/** Kill the app processes the agent started (they outlive it by design). */
const stopServices = () => {
  for (const env of (() => { try { return readdirSync(join(dir, 'agent', 'envs')); } catch { return []; } })()) {
    try {
      const state = JSON.parse(readFileSync(join(dir, 'agent', 'envs', env, 'state.json'), 'utf8'));
      for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
    } catch {}
  }
};
// Whatever fails below, the agent and its apps do not outlive the bench.
process.once('exit', () => {
  agent.kill('SIGKILL');
  stopServices();
});
await until(async () => (await api('GET', '/v1/hosts')).items.some((h) => h.status === 'connected'), 30_000, 'agent');
await api('POST', '/v1/projects', { name: 'app', repo: `file://${bare}`, branch: 'main', auto_upgrade: true, webhook_secret: SECRET });
const finished = (id) => until(async () => {
  const d = await api('GET', `/v1/deployments/${id}`);
  return ['succeeded', 'failed', 'rolled_back'].includes(d.status) && d;
}, 300_000, 'deployment');
const first = await api('POST', '/v1/projects/app/deploy', { source: {} });
const firstDone = await finished(first.deployment.id);
if (firstDone.status !== 'succeeded') throw new Error(`first deploy ${firstDone.status}: ${firstDone.error}`);

const pushMs = [];
const cachedMs = [];
for (let i = 1; i <= runs; i++) {
  const marker = `run ${i}`;
  const t0 = performance.now();
  write(work, { 'message.txt': marker });
  await git(work, 'commit', '-q', '-am', marker);
  await git(work, 'push', '-q', bare, 'main');
  const sha = await git(work, 'rev-parse', 'HEAD');
  const body = JSON.stringify({ ref: 'refs/heads/main', after: sha, deleted: false, repository: { full_name: 'bench/app' } });
  const res = await fetch(`${cp.url}/v1/hooks/github?project=app`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': `bench-${i}`, 'x-hub-signature-256': await sign(SECRET, body) }, body });
  const hook = await res.json();
  if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(hook)}`);
  const done = await finished(hook.deployment);
  if (done.status !== 'succeeded') throw new Error(`push deploy ${done.status}: ${done.error}`);
  // Each version listens on a port of its own: the env's endpoint after the deploy.
  const url = (await api('GET', `/v1/envs/${first.env.id}`)).endpoints[0].url;
  let seen = null;
  await until(async () => (seen = await (await fetch(url)).text()) === marker, 30_000, `${marker} served`).catch((err) => {
    throw new Error(`${err.message}: ${url} answered ${JSON.stringify(seen)}`);
  });
  pushMs.push(performance.now() - t0);

  // The same commit again: its build is reused.
  const t1 = performance.now();
  const again = await api('POST', '/v1/projects/app/deploy', { source: { ref: sha } });
  const againDone = await finished(again.deployment.id);
  if (againDone.status !== 'succeeded') throw new Error(`redeploy ${againDone.status}: ${againDone.error}`);
  const env = againDone.phases.find((p) => p.name === 'prepare').evidence.pipelines.web.stages.find((s) => s.name === 'env').detail;
  if (!/build cached$/.test(env)) throw new Error(`redeploy of the same commit did not reuse its build: ${env}`);
  cachedMs.push(performance.now() - t1);
}
agent.kill('SIGTERM');
await cp.close();
stopServices();

// ---- by hand: clone, npm ci, start, poll -----------------------------------------------------
const handMs = [];
for (let i = 1; i <= runs; i++) {
  const t0 = performance.now();
  const checkout = join(dir, `hand-${i}`);
  await git(dir, 'clone', '-q', `file://${bare}`, checkout);
  await runOrThrow(['npm', 'ci', '--offline', '--no-audit', '--no-fund'], { cwd: checkout, env: { ...process.env, CI: 'true' } });
  const port = await freePort();
  const proc = spawn(process.execPath, ['server.js'], { cwd: checkout, env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  await until(async () => (await fetch(`http://127.0.0.1:${port}/`)).ok, 30_000, 'by-hand server');
  handMs.push(performance.now() - t0);
  proc.kill('SIGKILL');
}
rmSync(dir, { recursive: true, force: true });

const p = median(pushMs);
const c = median(cachedMs);
const h = median(handMs);
console.log(`source deploy of a Node app (npm ci of a dependency in the repository), median of ${runs} runs`);
console.log(`  push → serving (webhook, cold build)   ${p.toFixed(0)} ms   ratio to by hand ${(p / h).toFixed(2)}`);
console.log(`  redeploy of the same commit (cached)   ${c.toFixed(0)} ms   ratio to by hand ${(c / h).toFixed(2)}`);
console.log(`  by hand: git clone + npm ci + start    ${h.toFixed(0)} ms`);
