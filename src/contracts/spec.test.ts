import { describe, expect, it } from 'vitest';
import { parseSpec } from './spec.js';
import { loadSpec } from './load-spec.js';
import { needsSourceBuild, parseBytes } from './spec-service.js';

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
      user: null,
      depends_on: {},
      restart: null,
      update_order: null,
      stop_signal: null,
      stop_grace_ms: null,
      limits: { memory_bytes: null, cpus: null, pids: null },
      published: [],
      secrets: [],
      configs: [],
      binds: [],
      build: null,
      networks: [],
      edge: null,
    });
    expect(spec.volumes).toEqual(['data']);
    expect(spec.warm).toEqual(['node', 'warm.js']);
    expect(spec.ignored).toBeUndefined();
  });

  it('takes a Compose healthcheck over x-denv.health, and defaults to staying alive 1 s', () => {
    const spec = parseSpec({ services: { a: { command: ['x'], healthcheck: { test: ['CMD', 'true'], interval: '1s', retries: 5 } }, b: { command: 'y' } } });
    expect(spec.services.a!.health).toMatchObject({ kind: 'command', test: ['true'], interval_ms: 1000, retries: 5 });
    expect(spec.services.b!.health).toEqual({ kind: 'alive', for_ms: 1000 });
  });

  it('honours user, depends_on, restart, limits, stop signal and grace, update order, ports and expose', () => {
    const spec = parseSpec(`
services:
  db:
    image: postgres:15
    command: [postgres, -D, /data]
    user: postgres
    stop_signal: INT
    stop_grace_period: 1m30s
    restart: unless-stopped
    mem_limit: 512m
    cpus: "0.5"
    pids_limit: 200
    volumes: [{type: volume, source: pg, target: /var/lib/postgresql/data}]
  web:
    image: registry.local/web@sha256:${'a'.repeat(64)}
    ports: ["127.0.0.1:8080:80/tcp", {target: 81}]
    expose: ["9000"]
    depends_on:
      db: {condition: service_healthy}
    deploy:
      resources: {limits: {memory: 1g, cpus: "2"}, reservations: {memory: 256m}}
      update_config: {order: stop-first, parallelism: 1}
      restart_policy: {condition: on-failure}
volumes: {pg: {}}
`);
    const db = spec.services.db!;
    expect(db).toMatchObject({ user: 'postgres', stop_signal: 'SIGINT', stop_grace_ms: 90_000, restart: 'unless-stopped', limits: { memory_bytes: 512 * 1024 ** 2, cpus: 0.5, pids: 200 } });
    const web = spec.services.web!;
    expect(web.ports).toEqual([80, 81, 9000]);
    expect(web.published).toEqual([{ target: 80, published: 8080, protocol: 'tcp' }]);
    expect(web.depends_on).toEqual({ db: { condition: 'service_healthy', required: true } });
    expect(web.limits).toEqual({ memory_bytes: 1024 ** 3, cpus: 2, pids: null });
    expect(web.update_order).toBe('stop-first');
    expect(web.restart).toBe('on-failure');
    expect(spec.ignored).toEqual(['services.web.deploy.update_config.parallelism', 'services.web.deploy.resources.reservations']);
  });

  it('lists cosmetic fields as ignored instead of refusing them', () => {
    const spec = parseSpec({ version: '3.8', services: { web: { command: 'x', container_name: 'w', hostname: 'h', labels: { a: 'b' }, logging: { driver: 'json-file' }, tty: true, stdin_open: true } } });
    expect(spec.ignored).toEqual(['version', 'services.web.container_name', 'services.web.hostname', 'services.web.labels', 'services.web.logging', 'services.web.tty', 'services.web.stdin_open']);
  });

  it('refuses with a reason, and reports every problem at once with its path', () => {
    expect(err({ services: { web: { command: 'x', privileged: true } } })).toBe('services.web.privileged: not supported by denv: a service gets no privileges on its host (docs/security.md)');
    expect(err({ services: { web: { command: 'x', bogus: 1 } } })).toBe('services.web: unknown field "bogus"');
    const all = err({ services: { web: { command: 'x', ports: ['0'], environment: { 'A=B': '1', LD_PRELOAD: '/x.so' }, volumes: [{ type: 'bind', target: '/d' }], network_mode: 'host' } } });
    expect(all.split('\n')).toEqual([
      'services.web.network_mode: not supported by denv: each env has one network of its own; services reach each other by name',
      'services.web.ports.0: expected a port such as 8080, "8080:80", "127.0.0.1:8080:80/tcp" or {target, published} (ranges are not supported)',
      'services.web.volumes.0.source: required for type bind: a path beside the Compose file',
      'services.web.environment.A=B: "A=B" is not a variable name (letters, digits, _ . -; not starting with a digit)',
      "services.web.environment.LD_PRELOAD: LD_PRELOAD is refused: it makes the dynamic loader run code of the caller's choosing (docs/security.md)",
    ]);
  });

  it('reads a service with only build as an image service built from source (denv-build/<service>); one with an image keeps it', () => {
    const spec = parseSpec({ services: { Web: { build: { context: 'app', dockerfile: 'Dockerfile.prod', args: ['A=1', 'B=two=2'], target: 'run' } }, api: { image: 'api:1', build: '.' } } });
    expect(spec.services.Web!.image).toBe('denv-build/web');
    expect(spec.services.Web!.build).toEqual({ context: 'app', dockerfile: 'Dockerfile.prod', args: { A: '1', B: 'two=2' }, target: 'run' });
    expect(needsSourceBuild('Web', spec.services.Web!)).toBe(true);
    expect(spec.services.api!.image).toBe('api:1');
    expect(needsSourceBuild('api', spec.services.api!)).toBe(false);
  });

  it('resolves a build context from the Compose file\'s directory (a source deploy\'s, in the repository), never above the root', async () => {
    const at = async (projectDir: string, context: string) => (await loadSpec({ services: { web: { build: context } } }, { projectDir })).services.web!.build!.context;
    expect(await at('/deploy', '../app')).toBe('/app');
    expect(await at('/deploy', '.')).toBe('/deploy');
    expect(await at('/', 'app')).toBe('/app');
    expect(await at('/', '../../etc')).toBe('/etc');
  });

  it('names the path of the problem', () => {
    expect(err({ services: { web: { command: 'x', healthcheck: { test: 5 } } } })).toMatch(/^services\.web\.healthcheck\.test: /);
    expect(err({ services: { web: { environment: { A: 1 } } } })).toBe('services.web: needs an image or a command (no image and no command to run)');
    expect(err({ services: { web: { command: 'x', volumes: ['data:/d'] } } })).toMatch(/volume "data" is not declared/);
    expect(err({ services: { web: { command: 'x', volumes: ['./here:/d'] } } })).toMatch(/bind mounts are for image services/);
    expect(err({ services: { web: { image: 'a', volumes: ['./here:/d'] } } })).toMatch(/\.\/here must be sent with the Compose file/);
    expect(err({ services: { web: { command: 'a | b' } } })).toMatch(/services\.web\.command: shell operators/);
    expect(err({ services: { web: { command: 'x', depends_on: ['nope'] } } })).toBe('services.web.depends_on.0: no service named "nope"');
    expect(err({ services: { web: { command: 'x' } }, volumes: { d: { external: true } } })).toMatch(/^volumes\.d\.external: not supported by denv/);
    expect(err({ services: {} })).toBe('services: at least one service is required');
    expect(err({ services: { web: { command: 'x' } }, 'x-denv': { bogus: 1 } })).toBe('x-denv: unknown field "bogus"');
  });

  it('carries secrets and configs the CLI packed, and refuses file secrets it did not', () => {
    const packed = { '/p/pass.txt': { kind: 'file', entries: [{ path: '', mode: 0o644, content_b64: Buffer.from('s3cret').toString('base64') }] } };
    const spec = parseSpec({
      services: { db: { command: 'x', secrets: ['pw', { source: 'pw', target: 'alt', mode: '0440' }], configs: ['conf'] } },
      secrets: { pw: { file: '/p/pass.txt' } },
      configs: { conf: { content: 'a=1' } },
      'x-denv-packed': packed,
    });
    expect(spec.services.db!.secrets).toEqual([{ source: 'pw', target: '/run/secrets/pw', mode: null }, { source: 'pw', target: 'alt', mode: 0o440 }]);
    expect(spec.services.db!.configs).toEqual([{ source: 'conf', target: '/conf', mode: null }]);
    expect(Object.keys(spec.files!)).toEqual(['secret:pw', 'config:conf']);
    expect(err({ services: { db: { command: 'x' } }, secrets: { pw: { file: '/p/pass.txt' } } })).toMatch(/^secrets\.pw\.file: \/p\/pass\.txt must be sent with the Compose file/);
  });

  it('refuses YAML that does not parse and resolves merge keys', () => {
    expect(() => parseSpec('services: [')).toThrow(/^compose: not valid YAML/);
    const spec = parseSpec('x-base: &base {command: [node, s.js], environment: {A: "1"}}\nservices:\n  a: {<<: *base, environment: {B: "2"}}\n');
    expect(spec.services.a).toMatchObject({ command: ['node', 's.js'], environment: { B: '2' } });
  });

  it('reads sizes as Compose does', () => {
    expect([parseBytes('512m'), parseBytes('1g'), parseBytes('1.5GB'), parseBytes(1024), parseBytes('12x')]).toEqual([512 * 1024 ** 2, 1024 ** 3, 1.5 * 1024 ** 3, 1024, null]);
  });
});

describe('parseSpec across runtimes', () => {
  it('refuses an image service waiting for a process service, naming both', () => {
    expect(() => parseSpec({ services: { web: { image: 'nginx', depends_on: ['db'] }, db: { command: 'x' } } })).toThrow(
      'services.web.depends_on.db: not supported by denv yet: an image service cannot wait for a process service (process services start after image services)',
    );
  });
});
