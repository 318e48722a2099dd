#!/usr/bin/env node
// bench/stateful-update — how long PostgreSQL is down during a stop-first update through denv,
// against stopping and starting the same PostgreSQL by hand with pg_ctl, in the same run.
//
//   node bench/stateful-update.mjs [--runs 10]     (as root; Debian's postgresql-15; npm run build first)
//
// denv side: a control plane in this process (embedded PGlite) and one real agent process on
// 127.0.0.1, copy driver. PostgreSQL 15 from /usr/lib/postgresql/15/bin runs as a process service
// with `user: postgres`, its data in a dataset and a pg_isready healthcheck — examples/postgres/compose.yaml,
// as test/postgres.test.ts deploys it. It is deployed once, then redeployed N times with a changed setting
// (`-c work_mem=…`): the writable dataset makes each update stop-first. Per update:
//   - down_ms: what the agent reports in the deploy's `prepare` evidence (`updates.db.down_ms`):
//     from stopping the old postmaster to the new one passing its healthcheck;
//   - outside window: a client probing `SELECT 1` over TCP every 5 ms, on every port of the agent's
//     (small) port range at once — each version gets its own port, and a real client would also
//     have to learn the new endpoint, so this is the lower bound of what a client sees — the
//     longest time between two successful answers across the update. The probe runs in a worker
//     thread, so the control plane's work in this thread cannot stall it.
// Baseline: a cluster this bench initdb's itself (as postgres, `runuser`, argv only) in a temp dir,
// listening on 127.0.0.1 with the same settings; per run a changed work_mem, then
// `pg_ctl -m fast stop` + `pg_ctl start -w`, with the same probe on its one port.
// Runs alternate (denv, baseline, denv, …) so machine noise hits both; run 0 of each only warms up.
// Prints median and max of each figure, the ratios denv / baseline, and how often the update moved
// PostgreSQL to another port (from the prepare evidence's endpoints).
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { freePort, median, until } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const runs = Number(arg('--runs', '10'));
const PG_BIN = '/usr/lib/postgresql/15/bin';
const PROBE_EVERY_MS = 5;
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));
const { runOrThrow } = await import(join(root, 'dist', 'lib', 'exec.js'));
const { default: pg } = await import('pg');

if (process.getuid?.() !== 0) throw new Error('run as root: PostgreSQL runs as user postgres');
if (!existsSync(join(PG_BIN, 'postgres'))) throw new Error(`${PG_BIN}/postgres is missing: install Debian's postgresql-15`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds on a clock shared by this thread and the probe workers. */
const now = () => performance.timeOrigin + performance.now();

/**
 * The probe, in a worker thread of its own: the control plane runs in this thread (PGlite's work
 * holds the event loop), and a probe stalled by it would record gaps PostgreSQL never had.
 * A client asking `SELECT 1` every PROBE_EVERY_MS on each of `ports`, keeping its connection
 * while it works and reconnecting when it breaks (a pool would do the same). Records the time of
 * every successful answer, from any port.
 */
const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const pg = createRequire(workerData.root + '/package.json')('pg');
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const last = new Float64Array(workerData.last);
const ok = [];
let stopped = false;
const loops = workerData.ports.map(async (port) => {
  let client = null;
  while (!stopped) {
    try {
      if (!client) {
        const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 500 });
        c.on('error', () => {});
        client = c;
        await c.connect();
      }
      await client.query('SELECT 1');
      const t = now();
      ok.push(t);
      last[0] = t;
    } catch {
      const c = client;
      client = null;
      if (c) c.end().catch(() => {});
    }
    await sleep(workerData.everyMs);
  }
  if (client) await client.end().catch(() => {});
});
parentPort.on('message', async (m) => {
  if (m.type === 'window') {
    let start = -1;
    for (let i = ok.length - 1; i >= 0; i--) if (ok[i] <= m.from) { start = i; break; }
    const end = ok.findIndex((t) => t > m.to);
    if (start < 0 || end < 0) return parentPort.postMessage({ error: 'the probe has no answer before or after the update' });
    let max = 0;
    for (let i = start + 1; i <= end; i++) max = Math.max(max, ok[i] - ok[i - 1]);
    parentPort.postMessage({ window: max });
  } else if (m.type === 'stop') {
    stopped = true;
    await Promise.all(loops);
    parentPort.postMessage({ stopped: true });
  }
});
`;

function startProbe(ports) {
  const lastBuf = new SharedArrayBuffer(8);
  const last = new Float64Array(lastBuf);
  last[0] = -Infinity;
  const worker = new Worker(PROBE_WORKER, { eval: true, workerData: { root, ports, everyMs: PROBE_EVERY_MS, last: lastBuf } });
  const ask = (msg) => new Promise((resolve, reject) => {
    worker.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    worker.postMessage(msg);
  });
  return {
    /** The time of the last success, or -Infinity. */
    last: () => last[0],
    /** The longest gap between successes, from the last one at or before `from` to the first one after `to`. */
    window: async (from, to) => (await ask({ type: 'window', from, to })).window,
    async stop() {
      await ask({ type: 'stop' });
      await worker.terminate();
    },
  };
}

// ---- set-up ------------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'denv-bench-stateful-'));
chmodSync(dir, 0o711); // services run as postgres and must traverse to their dataset
const portMin = 47000 + (process.pid % 50) * 20;
const agentPorts = Array.from({ length: 10 }, (_, i) => portMin + i);

const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), log: () => {} });
const headers = { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/json' };
const api = async (method, path, body) => (await fetch(cp.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json();
const agentDir = join(dir, 'agent');
const agent = spawn(process.execPath, [bin, 'agent', '--control', cp.url, '--enrollment-key', await cp.createEnrollmentKey(), '--data-dir', agentDir, '--name', 'bench-host', '--datasets', join(dir, 'datasets'), '--ports', `${portMin}-${portMin + agentPorts.length - 1}`], { stdio: 'ignore' });
await until(async () => (await api('GET', '/v1/hosts')).items.some((h) => h.status === 'connected'), 30_000, 'the agent to connect', 50);
await api('POST', '/v1/projects', { name: 'bench' });

// examples/postgres/compose.yaml, loaded as `denv deploy -f` loads it (PG_WORK_MEM from "the shell").
const { loadComposeFile } = await import(join(root, 'dist', 'cli', 'load-compose-file.js'));
const EXAMPLE = join(root, 'examples', 'postgres', 'compose.yaml');
const compose = async (workMem) => (await loadComposeFile(EXAMPLE, { env: { PG_WORK_MEM: workMem, PG_FSYNC: 'off' } })).model;

async function deploy(workMem) {
  const { deployment } = await api('POST', '/v1/projects/bench/deploy', { compose: await compose(workMem), env: 'production' });
  if (!deployment) throw new Error('the deploy was refused');
  const d = await until(async () => {
    const x = await api('GET', `/v1/deployments/${deployment.id}`);
    return ['succeeded', 'failed', 'rolled_back'].includes(x.status) && x;
  }, 180_000, `deployment ${deployment.id}`);
  if (d.status !== 'succeeded') throw new Error(`deploy ${d.id} ${d.status}: ${d.error}`);
  return d;
}

// The baseline cluster, owned by postgres, with the settings the denv service gets on its argv.
const pgHome = join(dir, 'baseline');
mkdirSync(pgHome);
await runOrThrow(['chown', 'postgres:postgres', pgHome]);
const pgData = join(pgHome, 'data');
const pgLog = join(pgHome, 'postgres.log');
const asPostgres = (argv) => runOrThrow(['runuser', '-u', 'postgres', '--', ...argv], { timeoutMs: 120_000 });
await asPostgres([join(PG_BIN, 'initdb'), '-D', pgData, '-U', 'postgres', '--auth=trust', '--no-sync']);
const basePort = await freePort();
appendFileSync(pgData + '/postgresql.conf', `\nlisten_addresses = '127.0.0.1'\nport = ${basePort}\nunix_socket_directories = ''\nfsync = off\nwork_mem = '4MB'\n`);
await asPostgres([join(PG_BIN, 'pg_ctl'), '-D', pgData, '-l', pgLog, 'start', '-w']);

/** Wait until the probe has answered recently (the service is up and the probe connected). */
const settled = (probe) => until(async () => now() - probe.last() < 50, 60_000, 'the probe to answer');

// ---- measure -----------------------------------------------------------------------------------
await deploy('4MB');
const denvProbe = startProbe(agentPorts);
const baseProbe = startProbe([basePort]);
const denv = { down: [], window: [], total: [], portChanged: 0 };
let dbPort = null;
const base = { window: [], total: [] };
for (let i = 0; i <= runs; i++) {
  const workMem = `${5 + i}MB`;

  await settled(denvProbe);
  await sleep(200);
  const t0 = now();
  const d = await deploy(workMem);
  const t1 = now();
  await until(async () => denvProbe.last() > t1, 30_000, 'an answer after the update');
  const prepare = d.phases.find((p) => p.name === 'prepare').evidence;
  const update = prepare.updates?.db;
  if (update?.order !== 'stop-first') throw new Error(`deploy ${d.id}: no stop-first update of db in prepare: ${JSON.stringify(prepare)}`);
  const portBefore = dbPort;
  const dbUrl = prepare.endpoints?.find((e) => e.service === 'db')?.url;
  dbPort = dbUrl ? Number(new URL(dbUrl).port) : null;

  await settled(baseProbe);
  await sleep(200);
  appendFileSync(pgData + '/postgresql.conf', `work_mem = '${workMem}'\n`);
  const b0 = now();
  await asPostgres([join(PG_BIN, 'pg_ctl'), '-D', pgData, '-m', 'fast', 'stop']);
  await asPostgres([join(PG_BIN, 'pg_ctl'), '-D', pgData, '-l', pgLog, 'start', '-w']);
  const b1 = now();
  await until(async () => baseProbe.last() > b1, 30_000, 'an answer after the restart');

  if (i === 0) continue; // warm-up
  denv.down.push(update.down_ms);
  denv.window.push(await denvProbe.window(t0, t1));
  denv.total.push(Date.parse(d.finished_at) - Date.parse(d.created_at));
  if (portBefore !== null && dbPort !== portBefore) denv.portChanged++;
  base.window.push(await baseProbe.window(b0, b1));
  base.total.push(b1 - b0);
  process.stderr.write(`run ${i}: denv port ${dbPort} down_ms=${update.down_ms} window=${denv.window.at(-1).toFixed(0)} ms · pg_ctl stop+start ${base.total.at(-1).toFixed(0)} ms window=${base.window.at(-1).toFixed(0)} ms\n`);
}

// Check the setting really changed (the update reached PostgreSQL).
const env = (await api('GET', '/v1/envs?project=bench&name=production')).items[0];
const dbUrl = env.endpoints.find((e) => e.service === 'db').url;
const check = new pg.Client({ host: '127.0.0.1', port: Number(new URL(dbUrl).port), user: 'postgres', database: 'postgres' });
await check.connect();
const shown = (await check.query('show work_mem')).rows[0].work_mem;
await check.end();
if (shown !== `${5 + runs}MB`) throw new Error(`work_mem is ${shown}, expected ${5 + runs}MB`);

// ---- tear-down ---------------------------------------------------------------------------------
await Promise.all([denvProbe.stop(), baseProbe.stop()]);
await api('DELETE', `/v1/envs/${env.id}`);
await sleep(2000);
agent.kill('SIGTERM');
await asPostgres([join(PG_BIN, 'pg_ctl'), '-D', pgData, '-m', 'immediate', 'stop']).catch(() => {});
await cp.close();
await sleep(500);
try {
  for (const e of readdirSync(join(agentDir, 'envs'))) {
    const state = JSON.parse(readFileSync(join(agentDir, 'envs', e, 'state.json'), 'utf8'));
    for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
  }
} catch {}
rmSync(dir, { recursive: true, force: true });

// ---- report ------------------------------------------------------------------------------------
const fmt = (xs) => `${median(xs).toFixed(0).padStart(5)} ms median  ${Math.max(...xs).toFixed(0).padStart(5)} ms max`;
console.log(`stop-first update of PostgreSQL 15 (Debian), ${runs} runs each, alternating; probe SELECT 1 every ${PROBE_EVERY_MS} ms`);
console.log(`  denv    down_ms (agent: stop old → new one healthy)   ${fmt(denv.down)}`);
console.log(`  denv    outside window (no answer from any port)      ${fmt(denv.window)}`);
console.log(`  denv    whole deploy (API created → finished)         ${fmt(denv.total)}`);
console.log(`  denv    db moved to another port on ${denv.portChanged} of ${runs} measured updates (a client at a fixed address waits for the new endpoint)`);
console.log(`  by hand pg_ctl -m fast stop + pg_ctl start -w         ${fmt(base.total)}`);
console.log(`  by hand outside window                                ${fmt(base.window)}`);
console.log('ratios (medians, denv / by hand)');
console.log(`  outside window            ${(median(denv.window) / median(base.window)).toFixed(2)}`);
console.log(`  down_ms / pg_ctl elapsed  ${(median(denv.down) / median(base.total)).toFixed(2)}`);
