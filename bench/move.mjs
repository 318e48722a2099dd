#!/usr/bin/env node
// bench/move — what `denv env move` costs: an env with a dataset of N MiB moved between two real
// agents, on btrfs (send/receive) and on plain directories (tar), against a baseline run here.
//
//   node bench/move.mjs [--sizes 64,512]     (MiB; needs root, btrfs-progs, npm run build)
//
// Four real agent processes on one control plane (in this process, embedded PGlite): two with
// their dataset roots on a loop-mounted btrfs made here, two on plain directories. For each driver
// and size, an env whose dataset holds N MiB of random data is deployed on the first host of the
// pair and moved to the second and back (POST /v1/envs/{env}/move), and each move's evidence read:
// export (archive written on the source), relay (chunks through the control plane over the two
// agents' WebSockets), import (archive checked and unpacked on the target), and the whole move
// (API → verdict, services restarted on the target included).
// Baseline, same machine, same data, same moment: the archive made and unpacked by the same
// programs directly (`tar --create` + `tar --extract`, or `btrfs send` + `btrfs receive`, through a
// file, no network): the floor a move cannot beat. Printed: MiB/s of the relay, and the ratio of
// export + relay + import to that baseline (the relay's own cost).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, sleep, until } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const sizesMiB = arg('--sizes', '64,512').split(',').map(Number);
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { runOrThrow, run } = await import(join(root, 'dist', 'lib', 'exec.js'));

// ---- set-up: a btrfs mount, a control plane, four agents ---------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-move-'));
chmodSync(dir, 0o711); // services run as users of their own: their datasets below must be reachable
const image = join(dir, 'btrfs.img');
const mnt = join(dir, 'btrfs');
mkdirSync(mnt);
closeSync(openSync(image, 'w'));
truncateSync(image, 8 * 1024 ** 3);
await runOrThrow(['mkfs.btrfs', '-q', image]);
await runOrThrow(['mount', '-o', 'loop', image, mnt]);

const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), log: () => {} });
const headers = { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/json' };
const api = async (method, path, body) => {
  const res = await fetch(cp.url + path, { method, headers: body === undefined ? { authorization: headers.authorization } : headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
};
const agents = [];
let portBase = 42000;
for (const driver of ['btrfs', 'copy']) {
  for (const side of ['a', 'b']) {
    const name = `${driver}-${side}`;
    const datasets = driver === 'btrfs' ? join(mnt, name) : join(dir, `${name}-datasets`);
    const dataDir = join(dir, `agent-${name}`);
    const key = await cp.createEnrollmentKey();
    agents.push({ name, dataDir, datasets, proc: spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', key, '--data-dir', dataDir, '--name', name, '--datasets', datasets, '--ports', `${portBase}-${portBase + 99}`], { stdio: ['ignore', openSync(`/tmp/movebench-${name}.log`, 'w'), 'inherit'] }) });
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

/** The baseline: the same programs through a file on this machine, no relay. */
async function baseline(driver, source, scratch) {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const file = join(scratch, 'archive');
  const t0 = performance.now();
  if (driver === 'btrfs') {
    await runOrThrow(['btrfs', 'subvolume', 'snapshot', '-r', source, join(scratch, 'ro')]);
    await runOrThrow(['btrfs', '-q', 'send', '-f', file, join(scratch, 'ro')]);
    mkdirSync(join(scratch, 'out'));
    await runOrThrow(['btrfs', '-q', 'receive', '-f', file, join(scratch, 'out')]);
  } else {
    await runOrThrow(['tar', '--create', '--file', file, '--directory', dirname(source), '--numeric-owner', '--sparse', 'data']);
    mkdirSync(join(scratch, 'out'));
    await runOrThrow(['tar', '--extract', '--file', file, '--directory', join(scratch, 'out'), '--numeric-owner', '--same-owner', '--same-permissions']);
  }
  const ms = performance.now() - t0;
  if (driver === 'btrfs') await run(['btrfs', 'subvolume', 'delete', join(scratch, 'ro'), join(scratch, 'out', 'ro')]);
  rmSync(scratch, { recursive: true, force: true });
  return ms;
}

const results = [];
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

// ---- report ------------------------------------------------------------------------------------
console.log('env move of an env with one dataset of random data, between two real agents (median of 2 moves: there and back)');
console.log('  driver  format  dataset   archive    export     relay  (MiB/s)    import   whole move   baseline  (export+relay+import)/baseline');
for (const r of results) {
  const rate = r.bytes / 1024 ** 2 / (r.relay / 1000);
  const ratio = (r.export + r.relay + r.import) / r.base;
  console.log(`  ${r.driver.padEnd(6)}  phases (ms): ${Object.entries(r.phases).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  ${r.driver.padEnd(6)}  ${r.format.padEnd(6)}  ${`${r.mib} MiB`.padEnd(8)} ${`${(r.bytes / 1024 ** 2).toFixed(0)} MiB`.padStart(8)}  ${`${r.export} ms`.padStart(8)}  ${`${r.relay} ms`.padStart(8)}  ${rate.toFixed(0).padStart(6)}  ${`${r.import} ms`.padStart(8)}  ${`${r.whole} ms`.padStart(10)}  ${`${r.base.toFixed(0)} ms`.padStart(8)}  ${ratio.toFixed(2).padStart(6)}`);
}
