#!/usr/bin/env node
// bench/abuse — does an anonymous (or merely noisy) caller stall the control plane?
//
//   node bench/abuse.mjs [--probes 300] [--rounds 3]
//
// Starts `denv server` as a child process on a fresh data dir, then measures `GET /healthz`
// latency (p50/p99 over N sequential probes on one keep-alive connection) quiet, and while:
//   (a) 100 unauthenticated sockets on /agent/ws send maximal pre-hello frames (the most the
//       server reads before `welcome`, 16 KiB), reconnecting as soon as they are closed;
//   (b) 50 clients post 4 MB nested JSON bodies without a token, in a loop;
//   (c) 300 SSE streams are open (15 tokens × 20, the per-token cap) on one env.
// Each is printed next to the quiet figure measured in the same run, and (a) and (b) are run again
// against a bare node:http + ws server that only refuses them (abuse-floor-server.mjs): the floor
// this machine allows. The attackers run in a child
// process at nice 19 (they stand for remote clients), and the server's CPU use during each
// measurement is printed beside it. Needs `npm run build` first.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, 'bin', 'denv');
const probes = Number(process.argv[process.argv.indexOf('--probes') + 1]) || 300;
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
const { default: WebSocket } = await import('ws');
const { PROTOCOL_VERSION } = await import(join(root, 'dist', 'contracts', 'protocol.js'));
const { DEFAULT_ADMISSION } = await import(join(root, 'dist', 'control-plane', 'gateway', 'agent-gateway.js'));
const preHelloKiB = DEFAULT_ADMISSION.preHelloMaxBytes / 1024;

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

// ---- attacker mode: `node bench/abuse.mjs --attack a|b|c --url U --token T` (a child of the run) --
const attackArg = process.argv.indexOf('--attack');
if (attackArg > 0) {
  await attack(process.argv[attackArg + 1], process.argv[process.argv.indexOf('--url') + 1], process.argv[process.argv.indexOf('--token') + 1]);
}

const dir = mkdtempSync(join(tmpdir(), 'denv-abuse-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
// The attackers stand for remote clients: on a machine with more than one core the servers get
// core 0 and the attackers the others (taskset), so what is measured is what the server spends on
// them, not the attackers' own CPU. The probe shares core 0 with the server, loaded or quiet.
const cores = availableParallelism();
const serverCores = cores > 1 ? ['taskset', '-c', '0'] : [];
const attackerCores = cores > 1 ? ['taskset', '-c', `1-${cores - 1}`] : [];
if (cores > 1) execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
/** Spawn `argv` behind `prefix` (a taskset or nice command line, possibly empty). */
const spawnBehind = (prefix, argv, opts) => spawn([...prefix, ...argv][0], [...prefix, ...argv].slice(1), opts);
const server = spawnBehind(serverCores, [process.execPath, bin, 'server', '--port', String(port), '--data-dir', join(dir, 'cp')], { stdio: ['ignore', 'pipe', 'pipe'] });
let serverOut = '';
server.stdout.on('data', (d) => (serverOut += d));
server.stderr.on('data', (d) => (serverOut += d));
for (let i = 0; ; i++) {
  const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
  if (ok) break;
  if (i > 600) throw new Error(`server did not start:\n${serverOut}`);
  await sleep(100);
}
const adminToken = readFileSync(join(dir, 'cp', 'admin-token'), 'utf8').trim();
const api = async (method, path, body, token = adminToken) => {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return res.json();
};

/** CPU time (user + system) a process has used, in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at USER_HZ 100
}

// One keep-alive connection for the probe, so what is measured is the server, not connection set-up.
const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function healthz(base) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(`${base}/healthz`, { agent: probeAgent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`healthz ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}
async function measure(base) {
  const ms = [];
  for (let i = 0; i < probes; i++) {
    ms.push(await healthz(base));
    await sleep(5);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99), max: Math.max(...ms) };
}


/** Runs one attack until killed; tells the parent `{ready: true}` once it is under way, and its
 *  figures on `stats` requests. The attackers get their own process (and event loop), so the
 *  probe measures the server, not a busy client. */
async function attack(kind, url, adminToken) {
  const api = async (method, path, body, token = adminToken) => {
    const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return res.json();
  };
// ---- (a) pre-hello frames -----------------------------------------------------------------------
  function preHelloFlood(n) {
    let stop = false;
    let frames = 0;
    let refusedAtOnce = 0;
    let refusedAtUpgrade = 0;
    // A well-formed hello with a well-formed unknown key: the worst case (parsed, validated, and
    // looked up in the database before it is refused), padded to just under the frame limit.
    const hello = { type: 'hello', protocol: PROTOCOL_VERSION, name: 'x', enrollment_key: `denr_${randomBytes(24).toString('base64url')}`, facts: { hostname: 'x', platform: 'linux', arch: 'x64', runtimes: [], dataset_driver: 'copy', agent_version: '0' } };
    const frame = JSON.stringify({ ...hello, pad: 'x'.repeat(DEFAULT_ADMISSION.preHelloMaxBytes - 400) });
    const loop = async () => {
      while (!stop) {
        await new Promise((resolve) => {
          const ws = new WebSocket(`${url.replace('http', 'ws')}/agent/ws`);
          ws.on('open', () => {
            ws.send(frame);
            frames++;
          });
          ws.on('close', (code) => {
            if (code === 1013) refusedAtOnce++;
            resolve();
          });
          // over the cap of unauthenticated sockets: 503 on the upgrade request, no handshake
          ws.on('unexpected-response', (_req, res) => {
            refusedAtUpgrade++;
            res.resume();
            ws.terminate();
          });
          ws.on('error', () => {});
        });
      }
    };
    const loops = Array.from({ length: n }, loop);
    return { stats: () => ({ frames, refusedAtUpgrade, closedUnchecked: refusedAtOnce }), stop: async () => { stop = true; await Promise.all(loops); } };
  }
  
  // ---- (b) big bodies without a token -------------------------------------------------------------
  function bodyFlood(n) {
    let stop = false;
    let sent = 0;
    const statuses = {};
    const depth = 1_000_000;
    const body = Buffer.from(`{"compose":${'['.repeat(depth)}${']'.repeat(depth)}}`.slice(0, 4 * 1000 * 1000));
    const agent = new http.Agent({ keepAlive: false });
    const one = () => new Promise((resolve) => {
      const req = http.request(`${url}/v1/projects/x/deploy`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end(body);
      sent++;
    });
    const loops = Array.from({ length: n }, async () => { while (!stop) await one(); });
    return { stats: () => ({ sent, statuses }), stop: async () => { stop = true; await Promise.all(loops); } };
  }
  
  // ---- (c) open SSE streams -----------------------------------------------------------------------
  async function openStreams(total, perToken) {
    await api('POST', '/v1/projects', { name: 'watched', approval: 'required' });
    const { env } = await api('POST', '/v1/projects/watched/deploy', { compose: { services: { web: { command: ['true'] } } } });
    const controllers = [];
    let open = 0;
    let refused = 0;
    for (let t = 0; t < Math.ceil(total / perToken); t++) {
      const { token } = await api('POST', '/v1/tokens', { name: `watcher-${t}`, scope: 'read' });
      await Promise.all(Array.from({ length: Math.min(perToken, total - t * perToken) }, async () => {
        const ac = new AbortController();
        const res = await fetch(`${url}/v1/envs/${env.id}/status/stream`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
        if (res.status !== 200) {
          refused++;
          return;
        }
        controllers.push(ac);
        open++;
        const reader = res.body.getReader();
        void (async () => { try { for (;;) { const { done } = await reader.read(); if (done) break; } } catch {} })();
      }));
    }
    // one more on a token already at its cap: refused with 429
    const { token } = await api('POST', '/v1/tokens', { name: 'greedy', scope: 'read' });
    const held = [];
    for (let i = 0; i <= perToken; i++) {
      const ac = new AbortController();
      const res = await fetch(`${url}/v1/envs/${env.id}/status/stream`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
      if (res.status === 429) refused++;
      else held.push(ac);
    }
    for (const ac of held) ac.abort();
    return { open, refusedOverCap: refused, close: () => controllers.forEach((ac) => ac.abort()) };
  }
  
  
  const running = kind === 'a' ? preHelloFlood(100) : kind === 'b' ? bodyFlood(50) : await openStreams(300, 20);
  process.on('message', (m) => {
    if (m === 'stats') process.send({ stats: running.stats ? running.stats() : { open: running.open, refusedOverCap: running.refusedOverCap } });
  });
  process.send?.({ ready: true });
  await new Promise(() => {}); // until killed
}

const row = (name, quiet, load, extra) =>
  console.log(`${name.padEnd(44)} quiet p50 ${quiet.p50.toFixed(1).padStart(6)} ms  p99 ${quiet.p99.toFixed(1).padStart(6)} ms | under load p50 ${load.p50.toFixed(1).padStart(6)} ms  p99 ${load.p99.toFixed(1).padStart(7)} ms  max ${load.max.toFixed(0).padStart(5)} ms  (p99 ×${(load.p99 / quiet.p99).toFixed(2)})  ${extra}`);

/** Quiet and loaded figures of `kind` against `target` ({url, pid, token}), alternating `rounds`
 *  times (on a shared machine a neighbour's burst would otherwise land on one side only); the
 *  medians over the rounds are printed. */
async function measureAttack(kind, name, target) {
  const quiets = [];
  const loads = [];
  const cpus = [];
  let stats;
  for (let r = 0; r < rounds; r++) {
    quiets.push(await measure(target.url));
    // niced: the attackers stand for remote clients, so they should not take the server's CPU
    const child = spawnBehind([...attackerCores, 'nice', '-n', '19'], [process.execPath, fileURLToPath(import.meta.url), '--attack', kind, '--url', target.url, '--token', target.token], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise((resolve) => child.on('message', (m) => m.ready && resolve()));
    await sleep(500);
    const cpu0 = cpuMs(target.pid);
    const wall0 = performance.now();
    loads.push(await measure(target.url));
    cpus.push((100 * (cpuMs(target.pid) - cpu0)) / (performance.now() - wall0));
    stats = await new Promise((resolve) => { child.on('message', (m) => m.stats && resolve(m.stats)); child.send('stats'); });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  const med = (xs, k) => pct(xs.map((x) => x[k]), 50);
  row(name, { p50: med(quiets, 'p50'), p99: med(quiets, 'p99') }, { p50: med(loads, 'p50'), p99: med(loads, 'p99'), max: Math.max(...loads.map((x) => x.max)) },
    `server CPU ${pct(cpus, 50).toFixed(0)}%  p99 per round: quiet ${quiets.map((x) => x.p99.toFixed(1)).join('/')} loaded ${loads.map((x) => x.p99.toFixed(1)).join('/')}  last round ${JSON.stringify(stats)}`);
}

// The floor (abuse-floor-server.mjs): the same attacks against a bare node:http + ws server that
// refuses them and does nothing else, so the ratios above can be read against what this machine
// allows at all.
const floorPort = await freePort();
const floor = spawnBehind(serverCores, [process.execPath, join(root, 'bench', 'abuse-floor-server.mjs'), String(floorPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve) => floor.stdout.once('data', resolve));
const attacks = [['a', `(a) 100 sockets, ${preHelloKiB} KiB pre-hello frames`], ['b', '(b) 50 clients, 4 MB bodies, no token'], ['c', '(c) 300 SSE streams open']];
try {
  const denv = { url, pid: server.pid, token: adminToken };
  await measure(url); // warm-up
  console.log(`GET /healthz, ${probes} sequential probes per figure, medians over ${rounds} alternating quiet/loaded rounds; denv server on 127.0.0.1:${port}; attackers in a separate process${cores > 1 ? `; server and probe on core 0, attackers on cores 1-${cores - 1}` : ' sharing the one core'}`);
  for (const [kind, name] of attacks) await measureAttack(kind, name, denv);
  const bare = { url: `http://127.0.0.1:${floorPort}`, pid: floor.pid, token: 'none' };
  await measure(bare.url);
  console.log('the floor: the same attacks against a bare node:http + ws server that only refuses them (bench/abuse-floor-server.mjs)');
  for (const [kind, name] of attacks.slice(0, 2)) await measureAttack(kind, `${name} [floor]`, bare);
} finally {
  floor.kill('SIGTERM');
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
