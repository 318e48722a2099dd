/**
 * The edge relay process (`node relay-main.js <dir>`): what makes a deploy behind the proxy drop
 * no request (issue 12, item 4).
 *
 * Every admin write to Caddy reloads its config and resets client connections (STACK.md), so the
 * proxy's route must not change when a version does. Each route's upstream is instead a stable
 * port on 127.0.0.1 held by this relay, which forwards every new TCP connection to the route's
 * current target (relay-table.ts, read per connection). A deploy switches the target by renaming
 * one file: connections made before keep their old backend until they end (the old version
 * drains), every later one reaches the new version, and the proxy never reloads. The proxy opens
 * a connection per request (keep-alive to upstreams is off in denv's routes), so "every later
 * connection" is "every later request".
 *
 * Runs detached, like services: an agent restart does not interrupt traffic; the next agent finds
 * it by its pid file. SIGHUP: open listeners for new routes, close those of removed ones (their
 * open connections finish). SIGTERM: stop accepting, exit once connections end (at most 30 s).
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { listRoutesSync, readRouteSync } from './relay-table.js';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: relay-main <relay dir>');
  process.exit(2);
}

const listeners = new Map<string, { server: net.Server; listen: number; lastTarget: number }>();
const open = new Set<net.Socket>();
const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);

function relay(id: string, client: net.Socket): void {
  const entry = listeners.get(id);
  const target = readRouteSync(dir!, id)?.target ?? entry?.lastTarget;
  if (entry && target) entry.lastTarget = target;
  if (!target) return void client.destroy();
  const upstream = net.connect({ host: '127.0.0.1', port: target });
  for (const s of [client, upstream]) {
    open.add(s);
    s.once('close', () => open.delete(s));
    s.setNoDelay(true);
  }
  // Either side failing ends both: the proxy sees the same error it would have seen dialing the service.
  client.once('error', () => upstream.destroy());
  upstream.once('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
}

function sync(): void {
  const wanted = new Set(listRoutesSync(dir!));
  for (const [id, entry] of listeners) {
    const route = readRouteSync(dir!, id);
    if (wanted.has(id) && route?.listen === entry.listen) continue;
    entry.server.close();
    listeners.delete(id);
    log(`route ${id}: stopped listening on ${entry.listen}`);
  }
  for (const id of wanted) {
    if (listeners.has(id)) continue;
    const route = readRouteSync(dir!, id);
    if (!route) continue;
    const server = net.createServer((c) => relay(id, c));
    server.on('error', (err) => {
      log(`route ${id}: cannot listen on 127.0.0.1:${route.listen}: ${err.message}`);
      listeners.delete(id);
    });
    server.listen(route.listen, '127.0.0.1', () => log(`route ${id}: 127.0.0.1:${route.listen} → 127.0.0.1:${route.target}`));
    listeners.set(id, { server, listen: route.listen, lastTarget: route.target });
  }
}

process.on('SIGHUP', sync);
process.on('SIGTERM', () => {
  for (const { server } of listeners.values()) server.close();
  const exit = () => process.exit(0);
  if (open.size === 0) exit();
  const check = setInterval(() => open.size === 0 && exit(), 100);
  setTimeout(exit, 30_000).unref();
  check.unref();
});
sync();
// Written once the signal handlers are in place: the agent sends SIGHUP as soon as it reads it.
writeFileSync(path.join(dir, 'relay.pid'), `${process.pid}\n`);
// Nothing else may be pending while no route listens; this keeps the relay alive.
setInterval(() => {}, 1 << 30);
