import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ServiceSpec } from '../../contracts/spec.js';
import { probeAvailability, probeTarget } from './availability.js';

const spec = (over: Partial<ServiceSpec>): ServiceSpec => ({
  image: null, command: ['x'], entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 }, ...over,
});

describe('probeTarget', () => {
  it('probes the HTTP health path, else / of services that declare ports, else nothing', () => {
    expect(probeTarget(spec({ health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 1 } }), 4000)).toEqual({ port: 4000, path: '/healthz' });
    expect(probeTarget(spec({ ports: [80] }), 4000)).toEqual({ port: 4000, path: '/' });
    expect(probeTarget(spec({}), 4000)).toBeNull();
  });
});

describe('probeAvailability', () => {
  it('counts any answer below 500 as up, and 5xx or a refused connection as down', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/bad' ? 503 : 404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(await probeAvailability(port, '/missing')).toMatchObject({ up: true, detail: 'HTTP 404' });
      expect(await probeAvailability(port, '/bad')).toMatchObject({ up: false, detail: 'HTTP 503' });
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await probeAvailability(port, '/')).toMatchObject({ up: false, latency_ms: null, detail: 'connection refused' });
  });
});
