#!/usr/bin/env node
// bench/edge-cutover — does switching a hostname to a new version drop requests?
//
//   node bench/edge-cutover.mjs [--flips 30] [--every 150] [--clients 8]
//
// Starts Debian's Caddy on loopback ports (admin API, HTTP), two upstream HTTP servers standing
// for two versions, and clients sending GET and POST (64-byte body) back to back through Caddy
// on keep-alive connections with `Host: app.example.test`. Then, under that load, it switches
// the hostname between the two versions `--flips` times, every `--every` ms, two ways:
//   (a) caddy   the route's upstream changed through Caddy's admin API (one PATCH per switch:
//               what a proxy provider does alone; Caddy reloads its config each time)
//   (b) relay   the route dials denv's edge relay (src/agent/edge/relay-main.ts) once, and each
//               switch renames the relay's target file (what deploys do since issue 12)
// and prints, for each, the requests sent, the failed ones (errors and non-200 answers) and the
// answers each version gave. Needs `npm run build` first and `apt-get install caddy`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './helpers.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const flips = arg('--flips', 30);
const everyMs = arg('--every', 150);
const clients = arg('--clients', 8);
const { CaddyProxy } = await import(join(root, 'dist', 'edge', 'caddy', 'caddy-proxy.js'));
const { EdgeRelay } = await import(join(root, 'dist', 'agent', 'edge', 'edge-relay.js'));
const { PortRegistry } = await import(join(root, 'dist', 'agent', 'ports.js'));

const HOST = 'app.example.test';

// Two versions of an app: GET answers its name, POST reads the body first.
const versions = await Promise.all(['blue', 'green'].map((name) => new Promise((resolve) => {
  const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end(name)); });
  server.listen(0, '127.0.0.1', () => resolve({ name, port: server.address().port, server }));
})));

const dir = mkdtempSync(join(tmpdir(), 'denv-cutover-'));
const [admin, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
writeFileSync(join(dir, 'boot.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${admin}`, config: { persist: false } } }));
const caddy = spawn('caddy', ['run', '--config', join(dir, 'boot.json')], { env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') }, stdio: 'ignore' });
caddy.on('error', (err) => { console.error(`caddy: ${err.message} (apt-get install caddy)`); process.exit(1); });
const proxy = new CaddyProxy({ adminUrl: `http://127.0.0.1:${admin}`, httpPort, httpsPort, bindHost: '127.0.0.1' });
for (let i = 0; !(await proxy.readiness()).ready; i++) { if (i > 100) throw new Error('caddy did not start'); await sleep(50); }
const relay = new EdgeRelay(join(dir, 'agent'), new PortRegistry(join(dir, 'agent')));

/** Load through Caddy until `work` resolves; returns what was sent and what failed. */
async function underLoad(work) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const tally = { sent: 0, failed: 0, errors: new Map(), answers: new Map() };
  let done = false;
  const one = (method) => new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: httpPort, path: '/', method, agent, headers: { host: HOST } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        if (res.statusCode === 200) tally.answers.set(body, (tally.answers.get(body) ?? 0) + 1);
        else { tally.failed++; tally.errors.set(`HTTP ${res.statusCode}`, (tally.errors.get(`HTTP ${res.statusCode}`) ?? 0) + 1); }
        resolve();
      });
    });
    req.on('error', (err) => { tally.failed++; tally.errors.set(err.code ?? err.message, (tally.errors.get(err.code ?? err.message) ?? 0) + 1); resolve(); });
    req.end(method === 'POST' ? 'x'.repeat(64) : undefined);
  });
  const loops = Array.from({ length: clients }, async (_, i) => { while (!done) { tally.sent++; await one(i % 2 ? 'POST' : 'GET'); } });
  await sleep(300);
  await work();
  await sleep(300);
  done = true;
  await Promise.all(loops);
  agent.destroy();
  return tally;
}

const route = (port) => ({ id: 'bench.web', hostnames: [HOST], upstreams: [{ host: '127.0.0.1', port }], tls: 'off' });
const results = {};
try {
  await proxy.upsertRoute(route(versions[0].port));
  results['(a) caddy admin API'] = await underLoad(async () => {
    for (let i = 1; i <= flips; i++) { await proxy.upsertRoute(route(versions[i % 2].port)); await sleep(everyMs); }
  });
  const { listen } = await relay.route('bench.web', versions[0].port);
  await proxy.upsertRoute(route(listen));
  results['(b) denv edge relay'] = await underLoad(async () => {
    for (let i = 1; i <= flips; i++) { await relay.route('bench.web', versions[i % 2].port); await sleep(everyMs); }
  });
} finally {
  await relay.remove('bench.web').catch(() => {});
  caddy.kill('SIGTERM');
  for (const v of versions) v.server.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`${flips} switches every ${everyMs} ms, ${clients} clients (GET and POST) through Caddy on keep-alive connections`);
for (const [name, t] of Object.entries(results)) {
  const errs = [...t.errors].map(([k, n]) => `${k}×${n}`).join(', ') || 'none';
  const answers = [...t.answers].map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(`${name.padEnd(22)} sent ${String(t.sent).padStart(6)}  failed ${String(t.failed).padStart(4)} (${((100 * t.failed) / t.sent).toFixed(2)} %)  errors: ${errs}  answers: ${answers}`);
}
