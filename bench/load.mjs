#!/usr/bin/env node
// bench/load — does the API stay fast while the control plane is busy? (issue 11, item 5)
//
//   node bench/load.mjs [--rate 20] [--deploys 30] [--waves 6] [--rounds 1] [--agents 50] [--idle-s 15] [--agents-s 15] [--settle-s 35]
//                       [--real-agents] [--agent-nice 10|idle] [--database-url postgres://…] [--cpu-prof <dir>]
//                       [--start-only] [--floor]
//
// Starts a real `denv server` (bin/denv, from dist/: `npm run build` first) on 127.0.0.1 with a
// fresh data dir, and prints:
//   * start: time from spawn to /healthz answering (and the CPU seconds it took), the RSS of the
//     server's process tree (the server and every descendant, /proc/<pid>/status VmRSS) 1 s after
//     /healthz answered, and the most the tree held while starting (sampled every 50 ms, so a
//     child it runs and waits for counts), on the empty data dir and after a restart on it;
//     `--start-only` stops there; and the tree's RSS after the phases below and again --settle-s
//     later, when the Compose loader's thread has ended (it ends after 30 s without a deploy);
//   * API reads (GET /v1/envs with the admin token, open loop at --rate req/s: a request is sent
//     on schedule whether or not the previous ones answered; sent and timed by a thread of the
//     bench that does nothing else, load-reader.mjs) p50/p99/max in the phases below, and
//     the CPU the server's process (all its threads) used per second of each, in cores (and the
//     deploying agent's own process, without the services it starts); the ratio
//     of a busy phase's p99 is to the idle phase after the deploys, which lists the same envs:
//       idle     one real agent connected, nothing happening, no env yet (--idle-s); and again
//                after the deploys, with their envs (--idle-s);
//       deploys  --deploys concurrent deploys of examples/hello (process services) to as many
//                envs through that real `denv agent`, from the POSTs until all are finished;
//                then --waves - 1 more waves, each updating every env (a new version beside the
//                old one). One wave takes ~3 s here, ~60 reads: their p99 would be the slowest
//                read but one, so the phase runs several waves to make its p99 a figure;
//                with --rounds N, the waves and the idle phase after them are run N times in turn
//                and each phase's reads pooled: a p99 of a few hundred reads is its third-slowest
//                read, and moves by 2× from run to run on a busy 2-core machine;
//       agents   --agents agents connecting: protocol-level WebSocket clients doing the real
//                handshake of `denv agent` (hello with an enrollment key → welcome with a host
//                credential; then, in waves, drop and hello again with the credential, as after
//                a network cut), all at once, for at least --agents-s. With --real-agents, as
//                many real `denv agent` processes instead (each a Node process of its own: on a
//                small machine their start-up competes for the CPU with the server).
// Agents and what they start run at nice --agent-nice (default 10): they stand in for other hosts,
// and on a 2-core machine 30 services starting at once would otherwise measure the scheduler, not
// the control plane. `--agent-nice 0` shows that too; `--agent-nice idle` puts them in Linux's
// SCHED_IDLE class (`chrt --idle`): they run only on a core nothing else wants, the nearest this
// machine comes to another host. Each service runs in a session of its own; the agent gives its
// scheduling group the agent's priority (nice 19 for SCHED_IDLE; lib/session-priority.ts).
// `--floor` also reads, at the same rate and in the same phases, a bare HTTP server in a process of
// its own that answers every request with the control plane's current answer (load-floor.mjs): its
// p99 is what this machine's scheduling alone adds to any read while the deploys run, the floor
// under the control plane's own figures.
// `--cpu-prof <dir>` writes V8 CPU profiles of the server's threads to <dir> and of the deploying
// agent to <dir>/agent.
// Targets (issue 11): p99 ≤ 100 ms in every phase and ≤ 2× idle; first start ≤ 5 s; RSS ≤ 300 MB.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { freePort, sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const flag = (name) => process.argv.includes(`--${name}`);
const RATE = Number(arg('rate', 20));
const DEPLOYS = Number(arg('deploys', 30));
const WAVES = Math.max(1, Number(arg('waves', 6)));
const ROUNDS = Math.max(1, Number(arg('rounds', 1)));
const AGENTS = Number(arg('agents', 50));
const IDLE_S = Number(arg('idle-s', 15));
const AGENTS_S = Number(arg('agents-s', 15));
const SETTLE_S = Number(arg('settle-s', 35));
const REAL_AGENTS = flag('real-agents');
const DATABASE_URL = arg('database-url', undefined);
const CPU_PROF = arg('cpu-prof', undefined);
const AGENT_NICE = arg('agent-nice', '10');
const FLOOR = flag('floor');
/** Lower an agent's CPU priority before it starts anything (its services inherit it). */
const niced = (proc) => {
  if (AGENT_NICE === 'idle') {
    const r = spawnSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(proc.pid)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`chrt --idle on the agent's pid ${proc.pid} failed (${r.error?.message ?? `exit ${r.status}`})`);
  } else {
    try {
      setPriority(proc.pid, Number(AGENT_NICE));
    } catch {}
  }
  return proc;
};

async function until(check, timeoutMs, what, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(everyMs);
  }
}
const status = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};
const kib = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
function descendants(pid) {
  let kids = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      kids.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    }
  } catch {}
  return kids.flatMap((k) => [k, ...descendants(k)]);
}
/** RSS of the process and all its descendants, MiB. */
function treeMemory(pid) {
  const pids = [pid, ...descendants(pid)];
  return { rss: pids.reduce((n, p) => n + kib(status(p), 'VmRSS'), 0) / 1024, processes: pids.length };
}
/** CPU seconds the process and its waited-for children used so far (/proc/<pid>/stat utime+stime+cutime+cstime). */
function cpuSeconds(pid, { children = true } = {}) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0)) / 100;
  } catch {
    return NaN;
  }
}
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

const dir = mkdtempSync(join(tmpdir(), 'denv-load-'));
chmodSync(dir, 0o755); // the example's files are read by the service's own user
const dataDir = join(dir, 'cp');
const children = new Set();
const cleanup = () => {
  for (const c of children) try { c.kill('SIGKILL'); } catch {}
};
process.on('exit', cleanup);

// ---- control plane start ----------------------------------------------------------------------
async function startServer() {
  const port = await freePort();
  const args = [bin, 'server', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir];
  const nodeArgs = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : [];
  const env = { ...process.env };
  if (DATABASE_URL) env.DATABASE_URL = DATABASE_URL;
  else delete env.DATABASE_URL;
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  let out = '';
  proc.stdout.on('data', (c) => (out += c));
  proc.stderr.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  // The tree's RSS every 50 ms while it starts: a child it runs and waits for (initdb) counts too.
  let startPeak = 0;
  const sampler = setInterval(() => (startPeak = Math.max(startPeak, treeMemory(proc.pid).rss)), 50);
  await until(async () => (await fetch(`${url}/healthz`)).ok, 120_000, `denv server /healthz\n${out}`, 5);
  clearInterval(sampler);
  const startMs = performance.now() - t0;
  const startCpu = cpuSeconds(proc.pid);
  await sleep(1000);
  const mem = treeMemory(proc.pid);
  return {
    proc, url, startMs, startCpu, startPeak, mem,
    output: () => out,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
      children.delete(proc);
    },
  };
}

const first = await startServer();
await first.stop();
const server = await startServer();
if (flag('start-only')) {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  for (const [name, s] of [['empty data dir', first], ['after restart', server]]) {
    console.log(`${name.padEnd(15)} ${s.startMs.toFixed(0).padStart(6)} ms (cpu ${s.startCpu.toFixed(1)} s)   RSS ${s.mem.rss.toFixed(0)} MiB (peak while starting ${s.startPeak.toFixed(0)} MiB)`);
  }
  process.exit(0);
}
const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
async function api(method, path, body) {
  const res = await fetch(server.url + path, { method, headers, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// ---- the reader: open loop at RATE req/s, on a thread of its own ---------------------------------
// The bench's own work (posting 30 deploys at once, polling their status, the protocol-level agents)
// would otherwise delay the reader's timers and the handling of its answers on the same event loop,
// and count as the server's latency. The reader thread does nothing but read.
/** A reader thread reading `url` at RATE/s whenever it is told to start. */
function startReader(url) {
  const worker = new Worker(new URL('./load-reader.mjs', import.meta.url), { workerData: { url, headers, rate: RATE } });
  worker.unref();
  return worker;
}
/** Tell `worker` to start; resolves with its latencies (sorted) once it is told to stop. */
function reading(worker) {
  const answer = new Promise((resolve, reject) => {
    worker.once('message', (r) => {
      worker.off('error', reject);
      resolve({ ...r, lat: r.lat.sort((a, b) => a - b) });
    });
    worker.once('error', reject);
  });
  worker.postMessage('start');
  return answer;
}
const reader = startReader(`${server.url}/v1/envs?limit=50`);
const floor = FLOOR ? await startFloor() : null;
/** Reads GET /v1/envs at RATE/s until `done` resolves (and at least `minMs`); returns latencies (ms)
 *  and, with --floor, the floor's (`floor`), read at the same time with the same answer. */
async function readUntil(done, minMs = 0) {
  if (floor) await fetch(floor.url, { method: 'PUT', body: await (await fetch(`${server.url}/v1/envs?limit=50`, { headers })).text() });
  const answers = [reading(reader), ...(floor ? [reading(floor.reader)] : [])];
  await Promise.all([done, sleep(minMs)]);
  reader.postMessage('stop');
  floor?.reader.postMessage('stop');
  const [r, f] = await Promise.all(answers);
  return { ...r, floor: f };
}
/** load-floor.mjs in a process of its own (at the server's priority), and a reader for it. */
async function startFloor() {
  const proc = spawn(process.execPath, [join(root, 'bench', 'load-floor.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(proc);
  const port = await new Promise((resolve, reject) => {
    proc.stdout.once('data', (c) => resolve(Number(String(c).trim())));
    proc.once('exit', (code) => reject(new Error(`load-floor.mjs exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  return { url, reader: startReader(url) };
}

// ---- one real agent for the deploys ------------------------------------------------------------
const helloDir = join(dir, 'hello');
cpSync(join(root, 'examples', 'hello'), helloDir, { recursive: true });
const agentKey = (await api('POST', '/v1/enrollment-keys', { single_use: false, expires_in: 3600 })).key;
const agentDir = join(dir, 'agent');
const agent = niced(spawn(process.execPath, [...(CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', join(CPU_PROF, 'agent')] : []), bin, 'agent', '--control', server.url, '--enrollment-key', agentKey, '--data-dir', agentDir,
  '--ports', '31000-31199', '--allow-path', dir, '--name', 'deployer'], { stdio: 'ignore' }));
children.add(agent);
await until(async () => (await api('GET', '/v1/hosts')).items.some((h) => h.status === 'connected'), 60_000, 'agent connected', 100);
await api('POST', '/v1/projects', { name: 'load' });
await sleep(2000); // let the agent's welcome traffic settle

/** The server's main-thread event-loop delay since the last call, ms (prom-client's monitorEventLoopDelay
 *  gauges in /metrics, which it resets at each scrape): a read slower than this waited elsewhere
 *  (the embedded database's worker, the network). */
async function loopDelay() {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const gauge = (name) => Number(new RegExp(`^denv_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: gauge('p99'), max: gauge('max') };
}

/** The machine's CPU so far: busy and all jiffies (/proc/stat), and the µs some task waited for a CPU
 *  (/proc/pressure/cpu `some total`). */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idleJ = f[3] + (f[4] ?? 0);
  const all = f.reduce((a, b) => a + b, 0);
  let waitedUs = NaN;
  try {
    waitedUs = Number(/some .*total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {}
  return { busy: all - idleJ, all, waitedUs };
}

/** Runs `phase` while reading; adds the CPU seconds the server's process (all its threads) used meanwhile,
 *  the main thread's event-loop delay, and how busy the whole machine was (every core's share, and
 *  the share of the time some runnable task waited for a CPU: on a small machine, the services the
 *  deploys start compete with the control plane for the two cores). */
async function measured(done, minMs = 0) {
  await loopDelay();
  const cpu0 = cpuSeconds(server.proc.pid);
  const agentCpu0 = cpuSeconds(agent.pid, { children: false });
  const m0 = machineCpu();
  const r = await readUntil(done, minMs);
  const m1 = machineCpu();
  const machine = { busy: (m1.busy - m0.busy) / (m1.all - m0.all), waited: (m1.waitedUs - m0.waitedUs) / 1000 / r.ms };
  const agentCpu = cpuSeconds(agent.pid, { children: false }) - agentCpu0;
  return { ...r, cpu: cpuSeconds(server.proc.pid) - cpu0, agentCpu, loop: await loopDelay(), machine };
}

// ---- phase: idle -------------------------------------------------------------------------------
const idle = await measured(sleep(IDLE_S * 1000));

// ---- phases: concurrent deploys, then idle again with their envs; --rounds times -----------------
const compose = (wave) => ({ services: { web: { command: ['node', 'server.js'], working_dir: helloDir, environment: { WAVE: String(wave) }, 'x-denv': { health: { path: '/healthz' } } } } });
/** One wave: DEPLOYS deploys at once, one per env; resolves when all have finished. */
async function wave(n) {
  const posted = await Promise.all(Array.from({ length: DEPLOYS }, (_, i) => api('POST', '/v1/projects/load/deploy', { compose: compose(n), env: `e${i + 1}` })));
  const ids = new Set(posted.map((p) => p.deployment.id));
  return until(async () => {
    const page = await api('GET', `/v1/deployments?limit=${DEPLOYS + 10}`);
    const mine = page.items.filter((d) => ids.has(d.id));
    return mine.length === ids.size && mine.every((d) => ['succeeded', 'failed', 'rolled_back'].includes(d.status)) && mine;
  }, 600_000, 'deploys finished', 500);
}
/** Several measured stretches as one: their reads pooled (so a p99 is taken over all of them), CPU
 *  and time summed, the machine's shares weighted by time, the event-loop delay the worst seen. */
function pooled(parts) {
  const ms = parts.reduce((n, p) => n + p.ms, 0);
  const weighted = (f) => parts.reduce((n, p) => n + f(p) * p.ms, 0) / ms;
  return {
    lat: parts.flatMap((p) => p.lat).sort((a, b) => a - b),
    errors: parts.flatMap((p) => p.errors),
    ms,
    cpu: parts.reduce((n, p) => n + p.cpu, 0),
    agentCpu: parts.reduce((n, p) => n + p.agentCpu, 0),
    loop: { p99: Math.max(...parts.map((p) => p.loop.p99)), max: Math.max(...parts.map((p) => p.loop.max)) },
    machine: { busy: weighted((p) => p.machine.busy), waited: weighted((p) => p.machine.waited) },
    floor: parts[0].floor && { lat: parts.flatMap((p) => p.floor.lat).sort((a, b) => a - b) },
  };
}
// Waves: new envs (their first version), then updates of each (a new version beside the old one).
// Each round is --waves waves measured, then --idle-s of nothing measured; the ratios pool every round's reads.
const deployRounds = [];
const idleRounds = [];
const deployResult = { ms: 0, succeeded: 0, failed: [] };
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  const done = (async () => {
    const finished = [];
    for (let n = 1; n <= WAVES; n++) finished.push(...(await wave(r * WAVES + n)));
    return finished;
  })();
  deployRounds.push(await measured(done.catch(() => {})));
  const finished = await done;
  deployResult.ms += performance.now() - t0;
  deployResult.succeeded += finished.filter((d) => d.status === 'succeeded').length;
  deployResult.failed.push(...finished.filter((d) => d.status !== 'succeeded').map((d) => `${d.id} ${d.status}: ${d.error}`));
  // Idle again, now with the envs (the same reads as under load: DEPLOYS envs listed).
  idleRounds.push(await measured(sleep(IDLE_S * 1000)));
}
const deploys = pooled(deployRounds);
const settledIdle = pooled(idleRounds);

// ---- phase: agents connecting ------------------------------------------------------------------
const agentsKey = (await api('POST', '/v1/enrollment-keys', { single_use: false, expires_in: 3600 })).key;
const facts = { hostname: 'load', platform: 'linux', arch: 'x64', runtimes: ['process'], dataset_driver: 'copy', agent_version: 'bench' };
const wsUrl = `${server.url.replace(/^http/, 'ws')}/agent/ws`;

/** One handshake as `denv agent` does it; resolves with the welcome and the open socket. Retries
 *  (as the agent's backoff does) when the server says "try again later". */
async function handshake(hello) {
  for (let attempt = 0; ; attempt++) {
    const outcome = await new Promise((resolve) => {
      const ws = new WebSocket(wsUrl, { handshakeTimeout: 10_000 });
      ws.on('open', () => ws.send(JSON.stringify(hello)));
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data));
        if (msg.type === 'welcome') resolve({ ws, welcome: msg });
        else if (msg.type === 'refused') resolve({ error: `refused ${msg.code}: ${msg.message}` });
      });
      ws.on('unexpected-response', (_req, res) => resolve({ retry: `HTTP ${res.statusCode}` }));
      ws.on('close', (code) => resolve({ retry: `closed ${code}` }));
      ws.on('error', () => {});
    });
    if (outcome.ws) return outcome;
    if (outcome.error || attempt > 50) throw new Error(outcome.error ?? outcome.retry);
    await sleep(100 + Math.random() * 200);
  }
}

async function fakeAgents() {
  const t0 = performance.now();
  const hosts = await Promise.all(Array.from({ length: AGENTS }, async (_, i) => {
    const { ws, welcome } = await handshake({ type: 'hello', protocol: 1, name: `load-${i}`, facts, enrollment_key: agentsKey });
    return { ws, id: welcome.host_id, credential: welcome.credential };
  }));
  const waves = [performance.now() - t0];
  for (;;) {
    const elapsed = performance.now() - t0;
    if (elapsed > AGENTS_S * 1000) break;
    // A network cut: every agent drops and says hello again with its credential.
    const w0 = performance.now();
    await Promise.all(hosts.map(async (h) => {
      h.ws.terminate();
      h.ws = (await handshake({ type: 'hello', protocol: 1, name: h.id, facts, host_id: h.id, credential: h.credential })).ws;
      h.ws.send(JSON.stringify({ type: 'heartbeat' }));
    }));
    waves.push(performance.now() - w0);
    await sleep(500);
  }
  for (const h of hosts) h.ws.close();
  return { what: `${AGENTS} protocol-level agents: enrolled in ${waves[0].toFixed(0)} ms, then ${waves.length - 1} reconnect waves (median ${median(waves.slice(1)).toFixed(0)} ms)` };
}

async function realAgents() {
  const t0 = performance.now();
  const procs = Array.from({ length: AGENTS }, (_, i) => {
    const p = niced(spawn(process.execPath, [bin, 'agent', '--control', server.url, '--enrollment-key', agentsKey, '--data-dir', join(dir, `agent-${i}`),
      '--ports', `${32000 + i * 10}-${32000 + i * 10 + 9}`, '--name', `load-${i}`], { stdio: 'ignore' }));
    children.add(p);
    return p;
  });
  await until(async () => (await api('GET', '/v1/hosts?limit=200')).items.filter((h) => h.name.startsWith('load-') && h.status === 'connected').length >= AGENTS, 300_000, 'real agents connected', 250);
  const ms = performance.now() - t0;
  await sleep(Math.max(0, AGENTS_S * 1000 - ms));
  for (const p of procs) p.kill('SIGTERM');
  return { what: `${AGENTS} real denv agent processes, all connected after ${ms.toFixed(0)} ms` };
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const agentsDone = REAL_AGENTS ? realAgents() : fakeAgents();
const agents = await measured(agentsDone.catch(() => {}));
const agentsResult = await agentsDone;

const steady = treeMemory(server.proc.pid);
// The Compose loader's thread ends 30 s after the last deploy's document (api/spec-loader.ts).
await sleep(SETTLE_S * 1000);
const settled = treeMemory(server.proc.pid);

// ---- clean up ----------------------------------------------------------------------------------
agent.kill('SIGTERM');
await new Promise((r) => agent.once('exit', r));
children.delete(agent);
await server.stop();
try {
  for (const env of readdirSync(join(agentDir, 'envs'))) {
    const state = JSON.parse(readFileSync(join(agentDir, 'envs', env, 'state.json'), 'utf8'));
    for (const s of state.services ?? []) if (s.pid) try { process.kill(-s.pid, 'SIGKILL'); } catch {}
  }
} catch {}
rmSync(dir, { recursive: true, force: true });

// ---- report ------------------------------------------------------------------------------------
const fmt = (ms) => `${ms.toFixed(1).padStart(7)} ms`;
const line = (name, r, base) => {
  const p50 = pct(r.lat, 50);
  const p99 = pct(r.lat, 99);
  const ratio = base ? `  p99/idle ${(p99 / pct(base.lat, 99)).toFixed(2).padStart(5)}` : '               ';
  const err = r.errors.length ? `  ${r.errors.length} errors (${[...new Set(r.errors)].slice(0, 3).join(', ')})` : '';
  const floorLine = r.floor ? `\n           floor (load-floor.mjs, the same answer from a bare server): p50 ${fmt(pct(r.floor.lat, 50))}  p99 ${fmt(pct(r.floor.lat, 99))}${base ? `  p99/idle ${(pct(r.floor.lat, 99) / pct(base.floor.lat, 99)).toFixed(2)}` : ''}` : '';
  return `  ${name.padEnd(8)} p50 ${fmt(p50)}  p99 ${fmt(p99)}  max ${fmt(r.lat.at(-1))}${ratio}  server cpu ${(r.cpu / (r.ms / 1000)).toFixed(2)} cores, deploying agent ${(r.agentCpu / (r.ms / 1000)).toFixed(2)}, event-loop delay p99 ${r.loop.p99.toFixed(0)} max ${r.loop.max.toFixed(0)} ms, machine busy ${(100 * r.machine.busy).toFixed(0)} %, cpu waited ${(100 * r.machine.waited).toFixed(0)} % (${r.lat.length} reads in ${(r.ms / 1000).toFixed(1)} s)${err}${floorLine}`;
};
console.log(`denv load bench — store: ${DATABASE_URL ? 'PostgreSQL server' : 'embedded'}; node ${process.version}; agents at ${AGENT_NICE === 'idle' ? 'SCHED_IDLE' : `nice ${AGENT_NICE}`}`);
console.log('control plane start (spawn → /healthz, and the CPU it took; RSS of the process tree 1 s later; peak = most the tree held while starting, sampled every 50 ms)');
console.log(`  empty data dir   ${first.startMs.toFixed(0).padStart(6)} ms (cpu ${first.startCpu.toFixed(1)} s)   RSS ${first.mem.rss.toFixed(0)} MiB (peak ${first.startPeak.toFixed(0)} MiB; ${first.mem.processes} process${first.mem.processes > 1 ? 'es' : ''})`);
console.log(`  after restart    ${server.startMs.toFixed(0).padStart(6)} ms (cpu ${server.startCpu.toFixed(1)} s)   RSS ${server.mem.rss.toFixed(0)} MiB (peak ${server.startPeak.toFixed(0)} MiB; ${server.mem.processes} process${server.mem.processes > 1 ? 'es' : ''})`);
console.log(`  after the phases                            RSS ${steady.rss.toFixed(0)} MiB`);
console.log(`  ${SETTLE_S} s later (idle)                        RSS ${settled.rss.toFixed(0)} MiB`);
console.log(`API reads: GET /v1/envs at ${RATE}/s, open loop`);
console.log(line('idle', idle));
console.log(`           nothing happening, no env yet`);
console.log(line('idle', settledIdle));
console.log(`           nothing happening, after the deploys: the same ${DEPLOYS} envs listed as in the phases below, whose ratios are against this one${ROUNDS > 1 ? ` (${ROUNDS} rounds pooled)` : ''}`);
console.log(line('deploys', deploys, settledIdle));
console.log(`           ${ROUNDS > 1 ? `${ROUNDS} rounds (pooled) of ` : ''}${WAVES} waves of ${DEPLOYS} concurrent deploys of examples/hello (create, then update): ${deployResult.succeeded} succeeded in ${(deployResult.ms / 1000).toFixed(1)} s${deployResult.failed.length ? `; not succeeded: ${deployResult.failed.slice(0, 3).join('; ')}` : ''}`);
console.log(line('agents', agents, settledIdle));
console.log(`           ${agentsResult.what}`);
console.log('targets: p99 ≤ 100 ms in every phase and ≤ 2× idle; first start ≤ 5 s; RSS ≤ 300 MB');
process.exit(0);
