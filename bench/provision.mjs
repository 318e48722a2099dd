#!/usr/bin/env node
// bench/provision — a fleet's costs (issue 14): how long a deploy takes to serve on a machine a cloud
// makes for it, and how long `denv env move` takes to carry an env's data to another host — each
// against a baseline run in the same script, on the same machine, at the same moment.
//
//   node bench/provision.mjs [--runs 3] [--sizes 10,1024]     (MiB; needs root, iproute2, btrfs-progs, npm run build)
//
// One control plane (in this process, embedded PGlite) and real agent processes:
//   provision  a team's `local` cloud makes a machine per deploy (a network namespace with its own
//              address and an agent of its own, clouds/local/): API → provision → join → serving
//              (the app answers on the machine's address), --runs times, each env destroyed after
//              (which deprovisions its machine). Baseline: the same deploy to a host already
//              connected. Printed: medians of provision, join and API → HTTP, and the ratio to the baseline.
//   move       four agents: two with their dataset roots on a loop-mounted btrfs made here, two
//              on plain directories. For each driver and size, an env whose dataset holds N MiB of
//              random data is deployed on the first of a pair and moved to the second and back
//              (POST /v1/envs/{env}/move); each move's evidence is read: export (archive written on
//              the source), relay (chunks through the control plane over the two agents'
//              WebSockets), import (checked and unpacked on the target), the whole move (API →
//              verdict: services stopped on one host and started on the other included), and each
//              phase. Baseline: the bare tools on the same data, piped with no network —
//              `btrfs send | btrfs receive` of a read-only snapshot, or `tar --create | tar --extract`:
//              the floor a move cannot beat. Printed: the relay's MiB/s and (export + relay + import) / baseline.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminApi, median, sleep, until, mountLoopBtrfs } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const sizesMiB = arg('--sizes', '10,1024').split(',').map(Number);
const runs = Number(arg('--runs', '3'));
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { runOrThrow, runPipedOrThrow, run } = await import(join(root, 'dist', 'lib', 'exec.js'));
const HELLO = join(root, 'examples', 'hello');

// ---- set-up: a btrfs mount, a control plane, four agents ---------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-provision-'));
chmodSync(dir, 0o711); // services run as users of their own: their datasets below must be reachable
const mnt = await mountLoopBtrfs(dir, 8 * 1024 ** 3, runOrThrow);

const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), log: () => {} });
const api = adminApi(cp);
const agents = [];
let portBase = 42000;
for (const driver of ['btrfs', 'copy']) {
  for (const side of ['a', 'b']) {
    const name = `${driver}-${side}`;
    const datasets = driver === 'btrfs' ? join(mnt, name) : join(dir, `${name}-datasets`);
    const dataDir = join(dir, `agent-${name}`);
    const key = await cp.createEnrollmentKey();
    agents.push({ name, dataDir, datasets, proc: spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', key, '--data-dir', dataDir, '--name', name, '--datasets', datasets, '--ports', `${portBase}-${portBase + 99}`, '--allow-path', HELLO], { stdio: 'ignore' }) });
    portBase += 100;
  }
}
await until(async () => (await api('GET', '/v1/hosts')).items.filter((h) => h.status === 'connected').length === 4, 30_000, 'agents', 50);
await api('POST', '/v1/projects', { name: 'bench' });

const SERVER = "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
const compose = {
  services: { web: { command: ['node', '-e', SERVER], volumes: ['data:/data'], 'x-denv': { health: { path: '/', timeout: '10s' } } } },
  volumes: { data: {} },
};

async function succeed(promise) {
  const { deployment, error } = await promise;
  if (!deployment) throw new Error(`no deployment in the answer: ${JSON.stringify(error)}`);
  const d = await until(async () => {
    const x = await api('GET', `/v1/deployments/${deployment.id}`);
    return ['succeeded', 'failed', 'rolled_back'].includes(x.status) && x;
  }, 600_000, `deployment ${deployment.id}`, 5);
  if (d.status !== 'succeeded') throw new Error(`${d.kind} ${d.id} ${d.status}: ${d.error}`);
  return d;
}

/** `mib` MiB of random (incompressible) data in real blocks: one random MiB written over and over. */
function fill(file, mib) {
  const chunk = randomBytes(1024 * 1024);
  const fd = openSync(file, 'w');
  for (let i = 0; i < mib; i++) writeSync(fd, chunk);
  closeSync(fd);
}

/** The baseline: the same tools on the same data, piped, no network. */
async function baseline(driver, source, scratch) {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'out'), { recursive: true });
  if (driver === 'btrfs') await runOrThrow(['btrfs', 'subvolume', 'snapshot', '-r', source, join(scratch, 'ro')]);
  const t0 = performance.now();
  if (driver === 'btrfs') await runPipedOrThrow(['btrfs', '-q', 'send', join(scratch, 'ro')], ['btrfs', '-q', 'receive', join(scratch, 'out')]);
  else await runPipedOrThrow(['tar', '--create', '--file', '-', '--directory', dirname(source), '--numeric-owner', '--sparse', 'data'], ['tar', '--extract', '--file', '-', '--directory', join(scratch, 'out'), '--numeric-owner', '--same-owner', '--same-permissions']);
  const ms = performance.now() - t0;
  if (driver === 'btrfs') await run(['btrfs', 'subvolume', 'delete', join(scratch, 'ro'), join(scratch, 'out', 'ro')]);
  rmSync(scratch, { recursive: true, force: true });
  return ms;
}

// Everything below tears down what it made, whatever fails (agents, machines, the btrfs mount).
const provisioned = [];
const connected = [];
const results = [];
try {
  // ---- provision: a machine per deploy from a local cloud, against a host already connected ------
  const HELLO_COMPOSE = { services: { web: { command: ['node', 'server.js'], working_dir: HELLO, 'x-denv': { health: { path: '/healthz' } } } } };
  await api('POST', '/v1/clouds', { name: 'here', provider: 'local', subnet: '10.231.212.0/24', allow_paths: [HELLO] });
  /** API → serving: the deployment's endpoint answers (polled every 5 ms); the deployment as it ended. */
  async function deployTimed(env, target) {
    const t0 = performance.now();
    const { deployment } = await api('POST', '/v1/projects/bench/deploy', { compose: HELLO_COMPOSE, env, target });
    // `until` reads a throw as "not yet": a failed deploy is returned, then thrown here.
    const seen = await until(async () => {
      const d = await api('GET', `/v1/deployments/${deployment.id}`);
      if (d.status === 'failed') return { failed: `deploy ${d.id} failed: ${d.error}` };
      const url = d.phases.find((p) => p.name === 'health').evidence?.endpoints?.[0]?.url;
      return url && { url };
    }, 600_000, 'endpoints', 5);
    if (seen.failed) throw new Error(seen.failed);
    const url = seen.url;
    await until(async () => (await fetch(url)).ok, 30_000, 'answering', 5);
    const serving = performance.now() - t0;
    const d = await succeed(Promise.resolve({ deployment }));
    await succeed(api('DELETE', `/v1/envs/${d.env}`));
    return { serving, d };
  }
  for (let i = 0; i < runs; i++) {
    const { serving, d } = await deployTimed(`fresh-${i}`, { cloud: 'here' });
    const phaseMs = (name) => Date.parse(d.phases.find((p) => p.name === name).finished_at) - Date.parse(d.phases.find((p) => p.name === name).started_at);
    provisioned.push({ serving, provision: phaseMs('provision'), join: d.phases.find((p) => p.name === 'join').evidence.joined_in_ms });
    connected.push((await deployTimed(`connected-${i}`, { host: 'copy-a' })).serving);
  }
  // Destroying each env deprovisions its machine; wait for the last one, so the move runs on a quiet fleet.
  await until(async () => (await api('GET', '/v1/hosts')).items.filter((h) => h.kind === 'provider' && h.status !== 'removed').length === 0, 120_000, 'machines deprovisioned', 100);

  for (const driver of ['btrfs', 'copy']) {
    const [a, b] = agents.filter((x) => x.name.startsWith(driver));
    for (const mib of sizesMiB) {
      const deploy = await succeed(api('POST', '/v1/projects/bench/deploy', { compose, env: `${driver}-${mib}`, target: { host: a.name } }));
      const env = deploy.env;
      fill(join(a.datasets, env, 'live', 'data', 'blob'), mib);
      await run(['sync']);
      const base = await baseline(driver, join(a.datasets, env, 'live', 'data'), join(driver === 'btrfs' ? mnt : dir, 'baseline'));
      const moves = [];
      for (const to of [b, a]) {
        const d = await succeed(api('POST', `/v1/envs/${env}/move`, { to: to.name }));
        const t = d.phases.find((p) => p.name === 'transfer').evidence;
        const phases = Object.fromEntries(d.phases.map((p) => [p.name, Date.parse(p.finished_at) - Date.parse(p.started_at)]));
        moves.push({ phases, export: t.exported_in_ms, relay: t.transferred_in_ms, import: t.imported_in_ms, bytes: t.bytes, whole: Date.parse(d.finished_at) - Date.parse(d.created_at), format: t.format });
      }
      await succeed(api('DELETE', `/v1/envs/${env}`));
      const m = (k) => median(moves.map((x) => x[k]));
      const phases = Object.fromEntries(Object.keys(moves[0].phases).map((k) => [k, median(moves.map((x) => x.phases[k]))]));
      results.push({ phases, driver, mib, format: moves[0].format, bytes: m('bytes'), export: m('export'), relay: m('relay'), import: m('import'), whole: m('whole'), base });
    }
  }
} finally {
  // ---- tear-down ---------------------------------------------------------------------------------
  for (const x of agents) x.proc.kill('SIGTERM');
  await cp.close();
  await sleep(500);
  for (const x of agents) {
    try {
      for (const env of readdirSync(join(x.dataDir, 'envs'))) {
        const state = JSON.parse(readFileSync(join(x.dataDir, 'envs', env, 'state.json'), 'utf8'));
        for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
      }
    } catch {}
  }
  for (let i = 0; i < 20 && (await run(['umount', mnt])).exitCode !== 0; i++) await sleep(250);
  rmSync(dir, { recursive: true, force: true });
}

// ---- report ------------------------------------------------------------------------------------
const med = (xs) => median(xs).toFixed(0);
console.log(`deploy of examples/hello, medians of ${runs}`);
console.log(`  to a machine a local cloud makes for it:  provision ${med(provisioned.map((p) => p.provision))} ms, join ${med(provisioned.map((p) => p.join))} ms, API → HTTP answer ${med(provisioned.map((p) => p.serving))} ms`);
console.log(`  to a host already connected (baseline):   API → HTTP answer ${med(connected)} ms   ratio ${(median(provisioned.map((p) => p.serving)) / median(connected)).toFixed(2)}`);
console.log('env move of an env with one dataset of random data, between two real agents (median of 2 moves: there and back); baseline: the bare tools piped');
console.log('  driver  format  dataset   archive    export     relay  (MiB/s)    import   whole move   baseline  (export+relay+import)/baseline');
for (const r of results) {
  const rate = r.bytes / 1024 ** 2 / (r.relay / 1000);
  const ratio = (r.export + r.relay + r.import) / r.base;
  console.log(`  ${r.driver.padEnd(6)}  phases (ms): ${Object.entries(r.phases).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  ${r.driver.padEnd(6)}  ${r.format.padEnd(6)}  ${`${r.mib} MiB`.padEnd(8)} ${`${(r.bytes / 1024 ** 2).toFixed(0)} MiB`.padStart(8)}  ${`${r.export} ms`.padStart(8)}  ${`${r.relay} ms`.padStart(8)}  ${rate.toFixed(0).padStart(6)}  ${`${r.import} ms`.padStart(8)}  ${`${r.whole} ms`.padStart(10)}  ${`${r.base.toFixed(0)} ms`.padStart(8)}  ${ratio.toFixed(2).padStart(6)}`);
}
