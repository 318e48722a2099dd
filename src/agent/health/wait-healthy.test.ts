import { spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { waitHealthy } from './wait-healthy.js';

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('waitHealthy after a pause', () => {
  it('probes once more when it wakes past its deadline, instead of failing a service that answers (issue 11: a frozen agent)', async () => {
    const port = await freePort();
    // A service that starts answering 300 ms from now.
    const server = spawn(process.execPath, ['-e', `setTimeout(() => require('http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1'), 300)`], { stdio: 'ignore' });
    children.push(server);
    // This thread is frozen for 1.5 s shortly after the wait begins, as a SIGSTOPped agent would be.
    setTimeout(() => {
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        // busy: nothing else runs
      }
    }, 20);
    const verdict = await waitHealthy({ kind: 'http', path: '/', port: null, timeout_ms: 500 }, { service: 'web', port, cwd: '/', env: {}, exitOf: async () => null });
    expect(verdict).toEqual({ ok: true });
  });
});
