import { describe, expect, it } from 'vitest';
import { formatBytes, formatLogLine, formatMetrics, formatStatusView } from './format-telemetry.js';

const NOW = Date.parse('2024-05-01T12:00:10Z');

describe('formatStatusView', () => {
  it('shows the env, its host, actions and one row per workload with the exit reason', () => {
    const text = formatStatusView(
      {
        env: 'env_1', name: 'production', status: 'running', current_version: 'ver_1', endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001' }], last_error: null,
        host: { id: 'host_1', name: 'box', status: 'connected', last_heartbeat_at: '2024-05-01T12:00:05Z' },
        live_status: { at: '2024-05-01T12:00:08Z', workloads: [{ service: 'web', version: 'ver_1', desired: 1, ready: 1, pid: 42, restarts: 2, last_exit: 'OOMKilled', last_exit_at: '2024-05-01T11:59:10Z', detail: 'HTTP 200', volumes: [{ name: 'data', bytes: 2048, truncated: false }] }] },
        actions: ['stop', 'teardown'],
      },
      NOW,
    );
    expect(text).toContain('host:         box (connected, heartbeat 5s ago)');
    expect(text).toContain('actions:      stop, teardown');
    expect(text).toMatch(/web\s+ver_1\s+1\/1\s+42\s+2\s+OOMKilled \(1m ago\)\s+data 2\.0 KiB\s+HTTP 200/);
  });
});

describe('formatMetrics', () => {
  it('summarises each service', () => {
    const text = formatMetrics(
      [{ service: 'web', points: [{ at: 'a', cpu_pct: 10, mem_bytes: 1048576, mem_limit_bytes: null }, { at: 'b', cpu_pct: 30, mem_bytes: 2097152, mem_limit_bytes: 134217728 }] }],
      [{ service: 'web', probes: 4, up: 3, uptime_pct: 75, last: { at: 'b', up: true, latency_ms: 2, detail: 'HTTP 200' }, down_since: null }],
      900_000,
    );
    expect(text.split('\n')[1]).toMatch(/^web\s+2\s+30\.0%\s+20\.0%\s+30\.0%\s+2\.0 MiB\s+2\.0 MiB\s+128\.0 MiB\s+75% of 4\s+up \(HTTP 200\)$/);
    expect(formatMetrics([], [], 900_000)).toBe('no samples in the last 15 min');
  });
});

describe('small formatters', () => {
  it('formats bytes and log lines', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(null)).toBe('—');
    expect(formatLogLine({ service: 'web', text: 'hi' }, true)).toBe('web | hi');
    expect(formatLogLine({ service: 'web', text: 'hi' }, false)).toBe('hi');
  });
});
