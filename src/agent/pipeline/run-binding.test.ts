import { describe, expect, it } from 'vitest';
import type { ServiceSpec } from '../../contracts/spec.js';
import { composeRunOf, effectiveRun, envelopeRunOf, runMismatch, signedRunOf, type RunSettings } from './run-binding.js';

const spec = (extra: Partial<ServiceSpec> = {}): ServiceSpec => ({
  image: 'r/web',
  command: null,
  entrypoint: null,
  environment: {},
  working_dir: null,
  ports: [],
  volumes: [],
  health: { kind: 'alive', for_ms: 1000 },
  ...extra,
});

describe('run binding', () => {
  it('normalises the envelope healthcheck as the Compose loader does (CMD stripped, CMD-SHELL kept, defaults)', () => {
    expect(signedRunOf({ healthcheck: { test: ['CMD', '/bin/check', '-q'] } }).healthcheck).toEqual({ kind: 'command', test: ['/bin/check', '-q'], interval_ms: 1000, timeout_ms: 30_000, retries: 3, start_period_ms: 0 });
    expect(signedRunOf({ healthcheck: { test: 'wget -qO- localhost', interval: '5s', retries: 1 } }).healthcheck).toMatchObject({ test: ['CMD-SHELL', 'wget -qO- localhost'], interval_ms: 5000, retries: 1 });
    expect(signedRunOf(undefined)).toEqual({ entrypoint: null, command: null, working_dir: null, user: null, healthcheck: null, volumes: null });
  });

  it('a Compose file may leave a setting out or repeat it; setting it otherwise is named, never its value', () => {
    const signed = signedRunOf({ command: ['serve'], volumes: [{ source: 'data', target: '/data' }, { source: 'cfg', target: '/cfg', read_only: true }] });
    expect(runMismatch(composeRunOf(spec()), signed)).toBeNull();
    const repeated = spec({ command: ['serve'], volumes: [{ source: 'cfg', target: '/cfg', read_only: true }, { source: 'data', target: '/data', read_only: false }] });
    expect(runMismatch(composeRunOf(repeated), signed)).toBeNull();
    expect(runMismatch(composeRunOf(spec({ command: ['serve', '--debug'] })), signed)).toMatch(/^command: the Compose file sets it differently from the envelope/);
    const leak = runMismatch(composeRunOf(spec({ entrypoint: ['sh', '-c', 'echo $API_KEY'] })), signed);
    expect(leak).toMatch(/^entrypoint: the Compose file sets it and the envelope does not/);
    expect(leak).not.toContain('API_KEY');
    expect(runMismatch(composeRunOf(spec({ user: 'root' })), signed)).toMatch(/^user: /);
    expect(runMismatch(composeRunOf(spec({ working_dir: '/' })), signed)).toMatch(/^working_dir: /);
    expect(runMismatch(composeRunOf(spec({ volumes: [{ source: 'data', target: '/data', read_only: true }] })), signed)).toMatch(/^volumes: /);
    const health = { kind: 'command', test: ['CMD-SHELL', 'cat /etc/shadow'], interval_ms: 1000, timeout_ms: 30_000, retries: 3, start_period_ms: 0 } as const;
    expect(runMismatch(composeRunOf(spec({ health })), signed)).toMatch(/^healthcheck: /);
    // An HTTP probe from the host (x-denv.health) runs nothing in the container.
    expect(runMismatch(composeRunOf(spec({ health: { kind: 'http', path: '/', port: null, timeout_ms: 1000 } })), signed)).toBeNull();
  });

  it('the container gets the envelope settings where it has them, else the Compose ones', () => {
    const run = effectiveRun(composeRunOf(spec({ working_dir: '/app', command: ['old'] })), signedRunOf({ command: ['new'] }));
    expect(run).toMatchObject({ command: ['new'], working_dir: '/app', entrypoint: null, volumes: null });
    expect(effectiveRun(composeRunOf(spec({ command: ['x'] })), null).command).toEqual(['x']);
  });
});

describe('envelopeRunOf', () => {
  it('says exactly what the Compose file sets: signedRunOf reads back the same settings, and nothing set gives no run', () => {
    const full: RunSettings = {
      entrypoint: ['/bin/busybox'],
      command: ['httpd', '-f'],
      working_dir: '/www',
      user: '1000:1000',
      healthcheck: { kind: 'command', test: ['/bin/busybox', 'true'], interval_ms: 1500, timeout_ms: 3000, retries: 2, start_period_ms: 250 },
      volumes: [{ source: 'data', target: '/data', read_only: true }],
    };
    expect(signedRunOf(envelopeRunOf(full))).toEqual(full);
    const shell: RunSettings = { ...full, healthcheck: { ...full.healthcheck!, test: ['CMD-SHELL', 'test -f /ok'] } };
    expect(signedRunOf(envelopeRunOf(shell))).toEqual(shell);
    expect(runMismatch(full, signedRunOf(envelopeRunOf(full)))).toBeNull();
    expect(envelopeRunOf({ entrypoint: null, command: null, working_dir: null, user: null, healthcheck: null, volumes: null })).toBeUndefined();
  });
});

