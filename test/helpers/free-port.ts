/** Free ports on 127.0.0.1 for servers a test starts. */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Bind `port` (0: any) on 127.0.0.1 and release it: the port bound, or null when it was taken. */
function probeTcp(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(port, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
    s.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' && port !== 0 ? resolve(null) : reject(err)));
  });
}

function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const u = createSocket('udp4');
    u.once('error', () => resolve(false));
    u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
  });
}

/**
 * A port free on 127.0.0.1 for TCP (and UDP too with `udp: true`, for a DNS server), found by
 * binding port 0: for a server started at once. It lies in the kernel's ephemeral range, so
 * between this check and the server's bind anything on the machine may be handed it (another
 * bind to port 0, a connection's local port): a server that binds later uses `lateBoundPort`.
 */
export async function freeLoopbackPort(o: { udp?: boolean } = {}): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = (await probeTcp(0))!;
    if (!o.udp || (await udpFree(port))) return port;
  }
  throw new Error('no free loopback port found in 20 attempts');
}

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> => freeLoopbackPort();

/** Ports for `lateBoundPort`: below the kernel's ephemeral range (32768 by default) and above the test agents' blocks (processes.ts). */
const LATE_MIN = 30000;
const LATE_PER_WORKER = 80;
let lateNext = 0;

/**
 * A free TCP port on 127.0.0.1 for a server that binds it only later — Caddy's listeners, made
 * with denv's first route — or binds it again after a restart (a control plane killed and started
 * on its port). The kernel never hands out ports outside its ephemeral range, so nothing takes it
 * meanwhile but an explicit bind (`udp: true`: free for UDP too, for a DNS server); each vitest worker (and up to 4 vitest runs, by parent pid) has
 * its own block, as the test agents' port ranges do, and a port still bound is passed over.
 */
export async function lateBoundPort(o: { udp?: boolean } = {}): Promise<number> {
  const ephemeralMin = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const slot = (process.ppid % 4) * 8 + (Number(process.env.VITEST_POOL_ID ?? 0) % 8);
  const base = LATE_MIN + slot * LATE_PER_WORKER;
  if (base + LATE_PER_WORKER > ephemeralMin) throw new Error(`lateBoundPort: the kernel's ephemeral ports start at ${ephemeralMin}, inside ${LATE_MIN}–${LATE_MIN + 32 * LATE_PER_WORKER - 1}: set net.ipv4.ip_local_port_range to start at 32768 or above`);
  for (let attempt = 0; attempt < LATE_PER_WORKER; attempt++) {
    const port = base + (lateNext++ % LATE_PER_WORKER);
    if ((await probeTcp(port)) !== null && (!o.udp || (await udpFree(port)))) return port;
  }
  throw new Error(`lateBoundPort: all ${LATE_PER_WORKER} ports from ${base} are bound`);
}
