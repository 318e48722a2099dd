import { describe, expect, it } from 'vitest';
import type { ProcessPayload } from '../../contracts/envelope.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { processMismatch, specDigest } from './admit-process.js';

const spec = (o: Partial<ServiceSpec> = {}): ServiceSpec => ({
  image: null, command: ['node', '/srv/app.js'], entrypoint: null, environment: { A: '1' }, working_dir: '/srv', ports: [], volumes: [],
  health: { kind: 'command', test: ['/srv/check'], interval_ms: 2000, timeout_ms: 30_000, retries: 3, start_period_ms: 0 }, user: 'app', ...o,
});
const payload = (process: Partial<ProcessPayload['process']> = {}, env: Record<string, string> = { A: '1' }): ProcessPayload => ({
  service: 'api', host: 'h', expires_at: '2030-01-01T00:00:00Z', nonce: 'n', env,
  process: { command: ['node', '/srv/app.js'], working_dir: '/srv', user: 'app', healthcheck: { test: ['CMD', '/srv/check'], interval: '2s' }, ...process },
});

describe('processMismatch', () => {
  it('accepts a Compose service that says exactly what is signed', () => {
    expect(processMismatch(spec(), payload())).toBeNull();
    // an HTTP check runs nothing on the host: it needs no signature
    expect(processMismatch(spec({ health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 1000 } }), payload({ healthcheck: undefined }))).toBeNull();
  });

  it.each([
    ['a working_dir the envelope leaves out', spec(), payload({ working_dir: undefined }), /^process\.working_dir:/],
    ['another user', spec({ user: 'root' }), payload(), /^process\.user:/],
    ['no user where one is signed', spec({ user: null }), payload(), /^process\.user:/],
    ['another healthcheck', spec({ health: { kind: 'command', test: ['sh', '-c', 'cat /etc/shadow'], interval_ms: 2000, timeout_ms: 30_000, retries: 3, start_period_ms: 0 } }), payload(), /^process\.healthcheck:/],
    ['an env key the envelope does not bind', spec({ environment: { A: '1', LD_PRELOAD: '/x.so' } }), payload(), /^environment LD_PRELOAD:/],
    ['a signed env key the Compose file drops', spec({ environment: {} }), payload(), /^environment A:/],
    ['an entrypoint', spec({ entrypoint: ['/bin/sh', '-c'] }), payload(), /^entrypoint:/],
    ['a secret', spec({ secrets: [{ source: 's', target: '/run/secrets/s', mode: 0o400 } as never] }), payload(), /^secrets, configs and bind mounts are refused/],
  ])('refuses %s', (_what, s, p, message) => {
    expect(processMismatch(s, p)).toMatch(message);
  });
});

describe('processMismatch names what differs, and what each side says', () => {
  it.each([
    ['another command', spec({ command: ['node', '/srv/other.js'] }), payload(), 'process.command: the Compose command is not the signed one'],
    ['a working_dir the envelope leaves out', spec(), payload({ working_dir: undefined }), "process.working_dir: the Compose service runs in /srv, the envelope signs none (denv deploy gives a process service without one the Compose file's directory)"],
    ['no working_dir where one is signed', spec({ working_dir: null }), payload(), "process.working_dir: the Compose service runs in its env's own dir, the envelope signs /srv (denv deploy gives a process service without one the Compose file's directory)"],
    ['another user', spec({ user: 'root' }), payload(), 'process.user: the Compose service runs as root, the envelope signs app'],
    ['no user where one is signed', spec({ user: null }), payload(), "process.user: the Compose service runs as its env's own user, the envelope signs app"],
    ['a user the envelope leaves out', spec(), payload({ user: undefined }), 'process.user: the Compose service runs as app, the envelope signs none'],
  ])('%s', (_what, s, p, message) => {
    expect(processMismatch(s, p)).toBe(message);
  });
});

describe('specDigest', () => {
  it('ignores key order and changes with anything in the spec', () => {
    const a = spec();
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as unknown as ServiceSpec;
    expect(specDigest('api', reordered)).toBe(specDigest('api', a));
    expect(specDigest('api', spec({ environment: { A: '2' } }))).not.toBe(specDigest('api', a));
    expect(specDigest('web', a)).not.toBe(specDigest('api', a));
  });
});
