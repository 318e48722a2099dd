#!/usr/bin/env node
// bench/fork — fork and snapshot costs of an env with data, on btrfs and on the copy driver.
//
//   node bench/fork.mjs [--runs 10] [--sizes 10,1024]     (MiB; needs root, btrfs-progs, npm run build)
//
// Two real agent processes on one control plane (in this process, embedded PGlite): one with its
// dataset root on a loop-mounted btrfs made here, one on a plain directory (copy driver). For each
// driver and dataset size, an env whose dataset holds one file of that size is deployed, then:
//   - `frozen_for`: N snapshots (POST /v1/envs/{env}/snapshot), the pause measured on the host;
//   - N sandboxes forked from the last snapshot version (POST /v1/sandboxes {from_version}), each
//     measured as `forked_in_ms` (the dataset fork on the host), API → verdict (the deployment
//     reads succeeded), and API → HTTP (the fork's endpoint answers 200), then destroyed (on btrfs,
//     `btrfs subvolume sync` then waits for the deleted subvolumes to be cleaned before the next).
// Prints medians, and the btrfs targets: fork < 100 ms whatever the size (1 GiB / 10 MiB < 1.5),
// frozen_for < 50 ms, a forked sandbox answering HTTP within 500 ms of the request.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, openSync, rmSync, writeSync, closeSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminApi, median, sleep, mountLoopBtrfs } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const runs = Number(arg('--runs', '10'));
const sizesMiB = arg('--sizes', '10,1024').split(',').map(Number);
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { runOrThrow, run } = await import(join(root, 'dist', 'lib', 'exec.js'));

async function until(check, timeoutMs, what, everyMs = 2) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(everyMs);
  }
}

// ---- set-up: a btrfs mount, a control plane, two agents ----------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-fork-'));
chmodSync(dir, 0o711); // services run as users of their own: their datasets below must be reachable
const mnt = await mountLoopBtrfs(dir, 16 * 1024 ** 3, runOrThrow);

const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), log: () => {} });
const api = adminApi(cp);
const agents = {};
const drivers = { btrfs: join(mnt, 'datasets'), copy: join(dir, 'copy-datasets') };
let portBase = 41000;
for (const [driver, datasets] of Object.entries(drivers)) {
  const key = await cp.createEnrollmentKey();
  agents[driver] = {
    datasets,
    dataDir: join(dir, `agent-${driver}`),
    proc: spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', key, '--data-dir', join(dir, `agent-${driver}`), '--name', `${driver}-host`, '--datasets', datasets, '--ports', `${portBase}-${portBase + 499}`], { stdio: 'ignore' }),
  };
  portBase += 500;
}
await until(async () => (await api('GET', '/v1/hosts')).items.filter((h) => h.status === 'connected').length === 2, 30_000, 'agents', 50);
for (const h of (await api('GET', '/v1/hosts')).items) {
  const driver = h.name.replace(/-host$/, '');
  if (h.facts.dataset_driver !== driver) throw new Error(`agent ${h.name} reports dataset_driver ${h.facts.dataset_driver}`);
}
await api('POST', '/v1/projects', { name: 'bench' });

const SERVER = "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
const compose = {
  services: { web: { command: ['node', '-e', SERVER], volumes: ['data:/data'], 'x-denv': { health: { path: '/', timeout: '10s' } } } },
  volumes: { data: {} },
};

async function finished(id) {
  return until(async () => {
    const d = await api('GET', `/v1/deployments/${id}`);
    return ['succeeded', 'failed', 'rolled_back'].includes(d.status) && d;
  }, 600_000, `deployment ${id}`, 5);
}
async function succeed(promise) {
  const { deployment } = await promise;
  if (!deployment) throw new Error('no deployment in the answer');
  const d = await finished(deployment.id);
  if (d.status !== 'succeeded') throw new Error(`${d.kind} ${d.id} ${d.status}: ${d.error}`);
  return d;
}

/** Fill `file` with `mib` MiB of non-zero data (real blocks, not a sparse file). */
function fill(file, mib) {
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  const fd = openSync(file, 'w');
  for (let i = 0; i < mib; i++) writeSync(fd, chunk);
  closeSync(fd);
}

const results = [];
for (const driver of Object.keys(drivers)) {
  for (const mib of sizesMiB) {
    const deploy = await succeed(api('POST', '/v1/projects/bench/deploy', { compose, env: `${driver}-${mib}`, target: { host: `${driver}-host` } }));
    const env = deploy.env;
    fill(join(agents[driver].datasets, env, 'live', 'data', 'blob'), mib);
    await run(['sync']);

    const frozen = [];
    let snapVersion = null;
    for (let i = 0; i < runs; i++) {
      const d = await succeed(api('POST', `/v1/envs/${env}/snapshot`, {}));
      frozen.push(d.phases[0].evidence.frozen_for);
      snapVersion = d.phases.at(-1).evidence.version;
    }

    const forked = [];
    const verdict = [];
    const answer = [];
    for (let i = 0; i < runs + 1; i++) {
      const t0 = performance.now();
      const { deployment, env: sandbox } = await api('POST', '/v1/sandboxes', { from_version: snapVersion });
      const url = await until(async () => {
        const d = await api('GET', `/v1/deployments/${deployment.id}`);
        if (d.status === 'failed') throw new Error(`fork ${d.id} failed: ${d.error}`);
        return d.phases.find((p) => p.name === 'clone').evidence?.endpoints?.[0]?.url;
      }, 60_000, 'clone endpoints');
      await until(async () => (await fetch(url)).ok, 10_000, 'fork answering', 1);
      const tAnswer = performance.now() - t0;
      const done = await finished(deployment.id);
      const tVerdict = Date.parse(done.finished_at) - Date.parse(done.created_at);
      if (i > 0) { // run 0 warms caches
        forked.push(done.phases.find((p) => p.name === 'clone').evidence.forked_in_ms);
        verdict.push(tVerdict);
        answer.push(tAnswer);
      }
      await succeed(api('DELETE', `/v1/envs/${sandbox.id}`));
      // Let btrfs finish cleaning the deleted subvolumes, so the next fork is not measured while
      // the filesystem is still freeing the previous one.
      if (driver === 'btrfs') await runOrThrow(['btrfs', 'subvolume', 'sync', mnt]);
    }
    await succeed(api('DELETE', `/v1/envs/${env}`));
    results.push({ driver, mib, forked: median(forked), verdict: median(verdict), answer: median(answer), frozen: median(frozen) });
  }
}

// ---- tear-down ---------------------------------------------------------------------------------
for (const a of Object.values(agents)) a.proc.kill('SIGTERM');
await cp.close();
await sleep(500);
for (const a of Object.values(agents)) {
  try {
    for (const env of (await import('node:fs')).readdirSync(join(a.dataDir, 'envs'))) {
      const state = JSON.parse(readFileSync(join(a.dataDir, 'envs', env, 'state.json'), 'utf8'));
      for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
    }
  } catch {}
}
for (let i = 0; i < 20 && (await run(['umount', mnt])).exitCode !== 0; i++) await sleep(250);
rmSync(dir, { recursive: true, force: true });

// ---- report ------------------------------------------------------------------------------------
const size = (mib) => (mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`);
console.log(`fork and snapshot of an env with one dataset, medians of ${runs} runs`);
console.log('  driver  dataset   forked_in_ms   API→verdict   API→HTTP answer   frozen_for');
for (const r of results) {
  console.log(`  ${r.driver.padEnd(6)}  ${size(r.mib).padEnd(8)}  ${r.forked.toFixed(1).padStart(9)} ms  ${r.verdict.toFixed(0).padStart(8)} ms  ${r.answer.toFixed(0).padStart(12)} ms  ${r.frozen.toFixed(0).padStart(7)} ms`);
}
const b = results.filter((r) => r.driver === 'btrfs');
const small = b.find((r) => r.mib === Math.min(...sizesMiB));
const big = b.find((r) => r.mib === Math.max(...sizesMiB));
if (small && big) {
  const verdictOk = b.every((r) => r.forked < 100);
  console.log('btrfs targets');
  const line = (label, ok, detail) => console.log(`  ${label.padEnd(44)} ${ok ? 'met' : 'MISSED'} (${detail})`);
  line('fork (forked_in_ms) < 100 ms at every size', verdictOk, b.map((r) => `${r.forked.toFixed(1)} ms`).join(', '));
  line(`fork ${size(big.mib)} / ${size(small.mib)} < 1.5`, big.forked / small.forked < 1.5, (big.forked / small.forked).toFixed(2));
  line('frozen_for < 50 ms', b.every((r) => r.frozen < 50), b.map((r) => `${r.frozen} ms`).join(', '));
  line('forked sandbox answers HTTP < 500 ms', b.every((r) => r.answer < 500), b.map((r) => `${r.answer.toFixed(0)} ms`).join(', '));
}
