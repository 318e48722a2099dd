/** Free ports on 127.0.0.1 for servers a test starts (found by binding port 0, then released). */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 for TCP (and UDP too with `udp: true`, for a DNS server). */
export async function freeLoopbackPort(o: { udp?: boolean } = {}): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
      s.on('error', reject);
    });
    if (!o.udp) return port;
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (udpFree) return port;
  }
  throw new Error('no free loopback port found in 20 attempts');
}

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> => freeLoopbackPort();
