import { describe, expect, it } from 'vitest';
import { containerProbes } from './container-probes.js';

describe('containerProbes', () => {
  it('http: httpGet on the health port, else the first port', () => {
    expect(containerProbes({ kind: 'http', path: '/up', port: 9000, timeout_ms: 1500 }, [8080])).toEqual({
      readinessProbe: { httpGet: { path: '/up', port: 9000 }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3 },
      livenessProbe: { httpGet: { path: '/up', port: 9000 }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 6 },
    });
    expect(containerProbes({ kind: 'http', path: '/up', port: null, timeout_ms: 30_000 }, [8080]).readinessProbe).toMatchObject({ httpGet: { port: 8080 } });
    expect(() => containerProbes({ kind: 'http', path: '/up', port: null, timeout_ms: 1000 }, [])).toThrow('its http health check (/up) has no port');
  });

  it('command: exec (CMD-SHELL through /bin/sh -c); liveness waits out start_period and keeps the readiness budget, at least 60 s', () => {
    const health = { kind: 'command', test: ['CMD-SHELL', 'curl -fs localhost || exit 1'], interval_ms: 30_000, timeout_ms: 5_000, retries: 4, start_period_ms: 1_500 } as const;
    expect(containerProbes(health, [])).toEqual({
      readinessProbe: { exec: { command: ['/bin/sh', '-c', 'curl -fs localhost || exit 1'] }, periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 4 },
      livenessProbe: { exec: { command: ['/bin/sh', '-c', 'curl -fs localhost || exit 1'] }, initialDelaySeconds: 2, periodSeconds: 30, timeoutSeconds: 5, failureThreshold: 4 },
    });
    // 100 ms × 300 retries (examples/postgres): readiness every second, liveness every 10 s for 300 s.
    const fast = containerProbes({ kind: 'command', test: ['pg_isready'], interval_ms: 100, timeout_ms: 30_000, retries: 300, start_period_ms: 0 }, []);
    expect(fast.readinessProbe).toEqual({ exec: { command: ['pg_isready'] }, periodSeconds: 1, timeoutSeconds: 30, failureThreshold: 300 });
    expect(fast.livenessProbe).toEqual({ exec: { command: ['pg_isready'] }, periodSeconds: 10, timeoutSeconds: 30, failureThreshold: 30 });
  });

  it('alive: tcpSocket on the first port; without ports, no probe', () => {
    expect(containerProbes({ kind: 'alive', for_ms: 1000 }, [6379, 16379])).toEqual({
      readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 5, failureThreshold: 3 },
      livenessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 10, failureThreshold: 6 },
    });
    expect(containerProbes({ kind: 'alive', for_ms: 1000 }, [])).toEqual({});
  });
});
