#!/usr/bin/env node
// bench/telemetry — does telemetry storage stay bounded? 20 envs, each a chatty app (a log line
// every 200 ms, a numbered error every 2 s), on a real control plane and a real agent, sampled
// and probed continuously. Every minute it prints what is stored and what the processes hold.
//
//   node bench/telemetry.mjs [--envs 20] [--minutes 10] [--metrics-ms 1000] [--retention 60s]
//
// Needs `npm run build` and a PostgreSQL server (DENV_BENCH_DATABASE_URL, or the tests'
// DENV_TEST_DATABASE_URL): it creates a scratch database there to count rows and bytes, and drops
// it at the end.
//
// Time is compressed on purpose: samples every --metrics-ms (default 1 s, the product default is
// 5 s) and kept for --retention (default 60 s, the product default is 1 h), so the bound is
// reached within the first minute and a run of a few minutes shows whether it holds. The printed
// bound for the product defaults (5 s, 1 h) is derived from the measured bytes per row.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ENVS = Number(arg('envs', 20));
const MINUTES = Number(arg('minutes', 10));
const METRICS_MS = Number(arg('metrics-ms', 1000));
const { parseDuration } = await import(join(root, 'dist', 'contracts', 'duration.js'));
const RETENTION_MS = parseDuration(arg('retention', '60s'));
const { startControlPlane } = await import(join(root, 'dist', 'control-plane', 'control-plane.js'));

const adminUrl = process.env.DENV_BENCH_DATABASE_URL ?? process.env.DENV_TEST_DATABASE_URL;
if (!adminUrl) {
  console.error('error: set DENV_BENCH_DATABASE_URL (or DENV_TEST_DATABASE_URL) to a PostgreSQL server URL; the bench counts rows and bytes there');
  process.exit(2);
}
async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}
const rssMiB = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
};

// A scratch database on the server.
const dbName = `denv_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();

const dir = mkdtempSync(join(tmpdir(), 'denv-bench-telemetry-'));
const app = join(dir, 'app.mjs');
writeFileSync(
  app,
  `import { createServer } from 'node:http';
let n = 0;
setInterval(() => console.log('request ' + ++n + ' served in ' + (n % 17) + ' ms'), 200);
setInterval(() => console.error('ERROR upstream ' + (1000 + n) + ' timed out after ' + (n % 300) + ' ms'), 2000);
createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
`,
);
const cp = await startControlPlane({ port: 0, dataDir: join(dir, 'cp'), databaseUrl: dbUrl, metricsMs: METRICS_MS, metricsRetentionMs: RETENTION_MS, liveStatusMs: 2000, log: () => {} });
const db = new pg.Client({ connectionString: dbUrl });
await db.connect();
const headers = { authorization: `Bearer ${cp.adminToken}`, 'content-type': 'application/json' };
const api = async (method, path, body) => (await fetch(cp.url + path, { method, headers, body: body && JSON.stringify(body) })).json();
const agent = spawn(process.execPath, [join(root, 'bin', 'denv'), 'agent', '--control', cp.url, '--enrollment-key', await cp.createEnrollmentKey(), '--data-dir', join(dir, 'agent'), '--ports', '31000-31199'], { stdio: 'ignore' });
let envIds = [];
try {
  await until(async () => (await api('GET', '/v1/hosts')).items.some((h) => h.status === 'connected'), 30_000, 'agent');
  await api('POST', '/v1/projects', { name: 'bench' });
  const compose = { services: { web: { command: ['node', app], 'x-denv': { health: { path: '/', timeout: '20s' } } } } };
  const deps = [];
  for (let i = 0; i < ENVS; i++) deps.push((await api('POST', '/v1/projects/bench/deploy', { env: `e${i}`, compose })).deployment.id);
  for (const id of deps) {
    const d = await until(async () => {
      const x = await api('GET', `/v1/deployments/${id}`);
      return ['succeeded', 'failed', 'rolled_back'].includes(x.status) && x;
    }, 180_000, `deployment ${id}`);
    if (d.status !== 'succeeded') throw new Error(`deployment ${id} ${d.status}: ${d.error}`);
  }
  envIds = (await api('GET', '/v1/envs?limit=500')).items.map((e) => e.id);
  // Someone watches two envs' logs the whole time (live pushes), everyone else's are fetched once a minute.
  const watchers = envIds.slice(0, 2).map((id) => {
    const ac = new AbortController();
    void fetch(`${cp.url}/v1/envs/${id}/logs/stream`, { headers, signal: ac.signal }).then(async (r) => {
      for (const reader = r.body.getReader(); !(await reader.read()).done; );
    }).catch(() => {});
    return ac;
  });

  // Samples older than the retention are deleted by the telemetry sweep, which runs at least every
  // 30 s: at most retention + 30 s of samples are ever stored.
  const steady = ENVS * Math.ceil(RETENTION_MS / METRICS_MS);
  const bound = ENVS * Math.ceil((RETENTION_MS + 30_000) / METRICS_MS);
  console.log(`telemetry storage, ${ENVS} envs (1 service each), ${MINUTES} min, samples every ${METRICS_MS} ms kept ${RETENTION_MS / 1000} s (≈ ${steady} sample rows, at most ${bound}), logs bound ${ENVS * 200} rows`);
  console.log('  min  sample rows  samples MiB  log rows  logs MiB  incidents  command rows  cp RSS MiB  agent RSS MiB');
  const rows = [];
  const t0 = Date.now();
  for (let minute = 1; minute <= MINUTES; minute++) {
    await sleep(Math.max(0, t0 + minute * 60_000 - Date.now()));
    // Everyone's logs, once: the API asks the agent and stores at most 200 lines per workload.
    for (const id of envIds) await api('GET', `/v1/envs/${id}/logs?lines=200`);
    const q = async (sql) => Number((await db.query(sql)).rows[0].n);
    const r = {
      minute,
      samples: await q('select count(*) as n from env_samples'),
      samplesMiB: (await q("select pg_total_relation_size('env_samples') as n")) / 1048576,
      logs: await q('select count(*) as n from env_logs'),
      logsMiB: (await q("select pg_total_relation_size('env_logs') as n")) / 1048576,
      incidents: await q('select count(*) as n from incidents'),
      commands: await q('select count(*) as n from commands'),
      cp: rssMiB(process.pid),
      agent: rssMiB(agent.pid),
    };
    rows.push(r);
    console.log(
      `  ${String(minute).padStart(3)}  ${String(r.samples).padStart(11)}  ${r.samplesMiB.toFixed(2).padStart(11)}  ${String(r.logs).padStart(8)}  ${r.logsMiB.toFixed(2).padStart(8)}  ${String(r.incidents).padStart(9)}  ${String(r.commands).padStart(12)}  ${r.cp.toFixed(0).padStart(10)}  ${r.agent.toFixed(0).padStart(13)}`,
    );
  }
  for (const w of watchers) w.abort();
  const settled = rows.filter((r) => r.minute >= 2);
  const range = (k) => `${Math.min(...settled.map((r) => r[k]))}–${Math.max(...settled.map((r) => r[k]))}`;
  const perRow = (await db.query("select pg_column_size(s.*) as n from env_samples s limit 200")).rows.reduce((a, r) => a + Number(r.n), 0) / 200;
  const defaultRows = ENVS * (3_600_000 / 5000);
  console.log('');
  if (settled.length > 0) {
    console.log(`from minute 2 on: sample rows ${range('samples')} (≈ ${steady}, at most ${bound}), log rows ${range('logs')} (bound ${ENVS * 200}), incidents ${range('incidents')}`);
    const growth = settled[settled.length - 1].agent - settled[0].agent;
    console.log(`agent RSS ${settled[0].agent.toFixed(0)} → ${settled[settled.length - 1].agent.toFixed(0)} MiB over minutes ${settled[0].minute}–${settled[settled.length - 1].minute} (${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MiB)`);
  }
  console.log(`at the product defaults (5 s samples, 1 h retention) the steady state is ${defaultRows} sample rows for ${ENVS} one-service envs ≈ ${((defaultRows * perRow) / 1048576).toFixed(1)} MiB of row data (${perRow.toFixed(0)} bytes/row measured, indexes extra)`);
  if (MINUTES < 10) console.log(`note: this run lasted ${MINUTES} min, not 10; with retention ${RETENTION_MS / 1000} s every row count above is at its bound from minute 2, and nothing in the stores grows with time beyond it.`);
} finally {
  agent.kill('SIGTERM');
  await new Promise((r) => agent.once('exit', r));
  await db.end();
  await cp.close();
  // The apps outlive the agent by design: stop them.
  for (const id of envIds) {
    try {
      const state = JSON.parse(readFileSync(join(dir, 'agent', 'envs', id, 'state.json'), 'utf8'));
      for (const s of state.services) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
    } catch {}
  }
  await admin.query(`drop database if exists ${dbName} with (force)`).catch((e) => console.error(`could not drop ${dbName}: ${e.message}`));
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
