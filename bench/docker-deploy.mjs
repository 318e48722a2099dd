#!/usr/bin/env node
// bench/docker-deploy — the signed docker pipeline against the bare sequence it wraps.
//
//   node bench/docker-deploy.mjs [--runs 10]
//
// Needs `npm run build`, a Docker Engine and the local registry on 127.0.0.1:5000 (.ci/docker-up).
// Builds two images FROM scratch (busybox httpd), pushes them, starts a real standalone agent
// (`bin/denv agent --config`, host networking) and then, N times, alternating the two digests so
// every run replaces a running container with an image that is not on the host yet:
//
//   denv  sign an envelope, POST /deploy, until it answers `success` (admit, verify, idempotency,
//         pull by digest + re-check, env file on tmpfs, compose up, health, persist)
//   bare  docker pull repo@digest, write the same compose file, docker compose up -d, poll
//         GET /healthz until 200
//
// The image is removed (docker rmi) before each side's run, so both really pull. Prints both
// medians and their ratio (target < 1.2), then the median of a `no_op` redeploy (a fresh envelope
// for the digest already running; target < 100 ms).
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 10;
const REGISTRY = '127.0.0.1:5000';
const HOST = 'bench-host';

const docker = (...args) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const rmi = (ref) => { try { docker('rmi', ref); } catch { /* not present */ } };

function buildImage(content) {
  const dir = mkdtempSync(join(tmpdir(), 'denv-bench-image-'));
  copyFileSync('/bin/busybox', join(dir, 'busybox'));
  mkdirSync(join(dir, 'www'));
  writeFileSync(join(dir, 'www', 'index.html'), content);
  writeFileSync(join(dir, 'www', 'healthz'), 'ok');
  writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\nCOPY busybox /bin/busybox\nCOPY www /www\nCMD ["/bin/busybox", "sh", "-c", "exec /bin/busybox httpd -f -p 127.0.0.1:$PORT -h /www"]\n');
  const repository = `${REGISTRY}/denv-bench/web`;
  const tag = `${content}-${Date.now().toString(36)}`;
  docker('build', '--quiet', '--tag', `${repository}:${tag}`, dir);
  const pushed = docker('push', `${repository}:${tag}`);
  docker('rmi', `${repository}:${tag}`);
  rmSync(dir, { recursive: true, force: true });
  const digest = /digest: (sha256:[0-9a-f]{64})/.exec(pushed)[1];
  return { repository, digest, ref: `${repository}@${digest}` };
}

// ---- set-up -----------------------------------------------------------------------------------
docker('version');
const images = [buildImage('v1'), buildImage('v2')];
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-docker-'));
const envDir = mkdtempSync('/dev/shm/denv-bench-env-');
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
writeFileSync(join(dir, 'ci.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(
  join(dir, 'agent.yaml'),
  `name: ${HOST}\ntrusted_keys: [ci.pub]\nallow: {repositories: ["${REGISTRY}/denv-bench/"], services: [web]}\nlisten: 127.0.0.1:0\nnetwork: host\nenv_dir: ${envDir}\n`,
);
const agent = spawn(process.execPath, [join(root, 'bin', 'denv'), 'agent', '--config', join(dir, 'agent.yaml'), '--data-dir', join(dir, 'data'), '--ports', '27000-27099'], { stdio: ['ignore', 'pipe', 'pipe'] });
let agentOut = '';
agent.stderr.on('data', (d) => (agentOut += d));
agent.stdout.on('data', (d) => (agentOut += d));
let url = null;
for (let i = 0; i < 600 && !url; i++) {
  url = /POST (http:\/\/[^\s]+)\/deploy/.exec(agentOut)?.[1] ?? null;
  if (!url) await sleep(50);
}
if (!url) throw new Error(`the agent did not start:\n${agentOut}`);

function envelope(image) {
  const payload = { service: 'web', repository: image.repository, digest: image.digest, host: HOST, expires_at: new Date(Date.now() + 600_000).toISOString(), nonce: randomUUID(), env: { GREETING: 'hello' }, health: { path: '/healthz', timeout: '10s' } };
  const bytes = Buffer.from(JSON.stringify(payload));
  return JSON.stringify({ payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key: privateKey, dsaEncoding: 'der' }).toString('base64') });
}

async function denvDeploy(image, expect = 'success') {
  const body = envelope(image);
  const started = performance.now();
  const res = await fetch(`${url}/deploy`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = await res.json();
  const took = performance.now() - started;
  if (answer.state !== expect) throw new Error(`denv deploy ended ${answer.state}: ${JSON.stringify(answer.stages)}`);
  return { took, stages: answer.stages };
}

// The bare sequence, with the same compose file shape the agent writes (host network, PORT, env file on tmpfs, init).
const barePort = await freePort();
const bareDir = mkdtempSync(join(tmpdir(), 'denv-bench-bare-'));
const bareEnv = join(envDir, 'bare.env');
writeFileSync(bareEnv, 'GREETING="hello"\n', { mode: 0o600 });
const composeArgv = (() => { try { execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' }); return ['docker', 'compose']; } catch { return ['docker-compose']; } })();
async function bareDeploy(image) {
  const started = performance.now();
  execFileSync('docker', ['pull', '--quiet', image.ref], { stdio: 'ignore' });
  writeFileSync(join(bareDir, 'compose.yml'), `version: "2.4"\nservices:\n  web:\n    image: ${image.ref}\n    init: true\n    restart: unless-stopped\n    network_mode: host\n    env_file: [${bareEnv}]\n    environment:\n      PORT: "${barePort}"\n`);
  execFileSync(composeArgv[0], [...composeArgv.slice(1), '--project-name', 'denv-bench-bare', '--file', join(bareDir, 'compose.yml'), 'up', '--detach', '--remove-orphans'], { stdio: 'ignore' });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${barePort}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await sleep(2);
  }
  return performance.now() - started;
}

// ---- runs -------------------------------------------------------------------------------------
const denvTimes = [];
const bareTimes = [];
const stageTimes = {};
try {
  // Warm both sides once (first compose run, first pull of a layer) — not counted.
  await denvDeploy(images[1]);
  await bareDeploy(images[1]);
  for (let i = 0; i < runs; i++) {
    const image = images[i % 2];
    const order = i % 2 ? ['bare', 'denv'] : ['denv', 'bare'];
    for (const side of order) {
      rmi(image.ref);
      if (side === 'denv') {
        const r = await denvDeploy(image);
        denvTimes.push(r.took);
        for (const s of r.stages) (stageTimes[s.name] ??= []).push(s.took_ms);
      } else {
        bareTimes.push(await bareDeploy(image));
      }
    }
  }
  const current = images[(runs - 1) % 2];
  const noOps = [];
  for (let i = 0; i < runs; i++) noOps.push((await denvDeploy(current, 'no_op')).took);

  const fmt = (ms) => `${ms.toFixed(0)} ms`;
  const ratio = median(denvTimes) / median(bareTimes);
  console.log(`docker deploy of a pinned image, ${runs} runs (${composeArgv.join(' ')}, registry ${REGISTRY}, pulled each run)`);
  console.log(`  denv signed deploy  median ${fmt(median(denvTimes))}   (min ${fmt(Math.min(...denvTimes))}, max ${fmt(Math.max(...denvTimes))})`);
  console.log(`  bare pull+up+health median ${fmt(median(bareTimes))}   (min ${fmt(Math.min(...bareTimes))}, max ${fmt(Math.max(...bareTimes))})`);
  console.log(`  ratio ${ratio.toFixed(2)} (target < 1.2)${ratio < 1.2 ? '' : '  ← above target'}`);
  console.log(`  denv stages, median ms: ${Object.entries(stageTimes).map(([n, xs]) => `${n} ${median(xs)}`).join(', ')}`);
  const noOp = median(noOps);
  console.log(`no_op redeploy (fresh envelope, same digest and env): median ${noOp.toFixed(1)} ms (min ${Math.min(...noOps).toFixed(1)}, max ${Math.max(...noOps).toFixed(1)}; target < 100 ms)${noOp < 100 ? '' : '  ← above target'}`);
} finally {
  agent.kill('SIGTERM');
  await new Promise((r) => agent.once('exit', r));
  try { execFileSync(composeArgv[0], [...composeArgv.slice(1), '--project-name', 'denv-bench-bare', '--file', join(bareDir, 'compose.yml'), 'down', '--timeout', '5'], { stdio: 'ignore' }); } catch { /* nothing up */ }
  const ids = docker('ps', '-aq', '--filter', 'label=dev.denv.slot=standalone/web').split('\n').filter(Boolean);
  if (ids.length) docker('rm', '--force', ...ids);
  for (const image of images) rmi(image.ref);
  rmSync(dir, { recursive: true, force: true });
  rmSync(bareDir, { recursive: true, force: true });
  rmSync(envDir, { recursive: true, force: true });
}
