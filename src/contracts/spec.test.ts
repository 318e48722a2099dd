import { describe, expect, it } from 'vitest';
import { parseSpec } from './spec.js';

const err = (src: unknown) => {
  try {
    parseSpec(src as Record<string, unknown>);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected parseSpec to throw');
};

describe('parseSpec', () => {
  it('normalises a process service with x-denv health and a named volume', () => {
    const spec = parseSpec(`
services:
  web:
    command: node server.js --port "$PORT"
    working_dir: /srv/app
    environment: [GREETING=hi, EMPTY=]
    volumes: [data:/data]
    x-denv: { health: { path: /healthz, timeout: 5s } }
    x-other: ignored
volumes:
  data: {}
x-denv.warm: node warm.js
x-whatever: 1
`);
    expect(spec.services.web).toEqual({
      image: null,
      command: ['node', 'server.js', '--port', '$PORT'],
      entrypoint: null,
      environment: { GREETING: 'hi', EMPTY: '' },
      working_dir: '/srv/app',
      ports: [],
      volumes: [{ source: 'data', target: '/data', read_only: false }],
      health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 5000 },
    });
    expect(spec.volumes).toEqual(['data']);
    expect(spec.warm).toEqual(['node', 'warm.js']);
  });

  it('takes a Compose healthcheck over x-denv.health, and defaults to staying alive 1 s', () => {
    const spec = parseSpec({ services: { a: { command: ['x'], healthcheck: { test: ['CMD', 'true'], interval: '1s', retries: 5 } }, b: { command: 'y' } } });
    expect(spec.services.a!.health).toMatchObject({ kind: 'command', test: ['true'], interval_ms: 1000, retries: 5 });
    expect(spec.services.b!.health).toEqual({ kind: 'alive', for_ms: 1000 });
  });

  it('names the path of the problem', () => {
    expect(err({ services: { web: { command: 'x', privileged: true } } })).toBe('services.web: unknown field "privileged"');
    expect(err({ services: { web: { command: 'x', healthcheck: { test: 5 } } } })).toMatch(/^services\.web\.healthcheck\.test: /);
    expect(err({ services: { web: { environment: { A: 1 } } } })).toBe('services.web: needs an image or a command (no image and no command to run)');
    expect(err({ services: { web: { command: 'x', volumes: ['data:/d'] } } })).toMatch(/volume "data" is not declared/);
    expect(err({ services: { web: { command: 'x', volumes: ['./here:/d'] } } })).toMatch(/bind mounts are not supported/);
    expect(err({ services: { web: { command: 'a | b' } } })).toMatch(/services\.web\.command: shell operators/);
    expect(err({ services: {} })).toBe('services: at least one service is required');
    expect(err({ services: { web: { command: 'x' } }, 'x-denv': { bogus: 1 } })).toBe('x-denv: unknown field "bogus"');
  });

  it('refuses YAML that does not parse', () => {
    expect(() => parseSpec('services: [')).toThrow(/^compose: not valid YAML/);
  });
});
