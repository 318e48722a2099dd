/**
 * loadCompose end to end over an in-memory FileAccess: the Compose specification's own examples
 * for extends, profiles and include (table-driven), env_file and .env, the canonical form, every
 * problem reported with its path, and a second load of the model giving it back unchanged.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDenvError } from '../errors.js';
import type { FileAccess } from './file-access.js';
import { loadCompose, type LoadComposeOptions } from './load-compose.js';

const ROOT = '/srv/app';

/** A fake disk: absolute path → text. */
function disk(files: Record<string, string>): FileAccess {
  const abs = Object.fromEntries(Object.entries(files).map(([p, t]) => [path.resolve(ROOT, p), t]));
  return {
    readText: async (p) => {
      const t = abs[p];
      if (t === undefined) throw new Error(`ENOENT ${p}`);
      return t;
    },
    exists: async (p) => p in abs,
  };
}

async function load(text: string, opts: Partial<LoadComposeOptions> & { disk?: Record<string, string> } = {}) {
  return loadCompose({ text, file: `${ROOT}/compose.yaml`, projectDir: ROOT, env: {}, files: disk(opts.disk ?? {}), ...opts });
}

async function problemsOf(text: string, opts: Partial<LoadComposeOptions> & { disk?: Record<string, string> } = {}): Promise<string[]> {
  try {
    await load(text, opts);
  } catch (err) {
    if (!isDenvError(err) || err.code !== 'INVALID_COMPOSE') throw err;
    return err.message.split('\n').slice(1).map((l) => l.trim());
  }
  throw new Error('expected INVALID_COMPOSE');
}

function services(model: Record<string, unknown>): Record<string, Record<string, unknown>> {
  return model.services as Record<string, Record<string, unknown>>;
}

describe('extends (Compose specification, services.extends examples)', () => {
  it.each([
    ['map syntax', 'environment:\n      TZ: utc\n      PORT: 80', 'environment:\n      PORT: 8080'],
    ['array syntax', 'environment:\n      - TZ=utc\n      - PORT=80', 'environment:\n      - PORT=8080'],
  ])('mappings: keys of the service that extends win (%s)', async (_name, common, cli) => {
    const { model } = await load(`services:\n  common:\n    image: busybox\n    ${common}\n  cli:\n    extends:\n      service: common\n    ${cli}\n`);
    expect(services(model).cli).toEqual({ image: 'busybox', environment: { TZ: 'utc', PORT: '8080' } });
  });

  it('volumes are merged by target: the main mount replaces the referenced one', async () => {
    const { model } = await load(
      'services:\n  common:\n    image: busybox\n    volumes:\n      - common-volume:/var/lib/backup/data:rw\n  cli:\n    extends:\n      service: common\n    volumes:\n      - cli-volume:/var/lib/backup/data:ro\nvolumes:\n  common-volume:\n  cli-volume:\n',
    );
    expect(services(model).cli!.volumes).toEqual([{ type: 'volume', source: 'cli-volume', target: '/var/lib/backup/data', read_only: true, volume: {} }]);
  });

  it('chains: cli gets user from common, which gets it from base', async () => {
    const { model } = await load('services:\n  base:\n    image: busybox\n    user: root\n  common:\n    image: busybox\n    extends:\n      service: base\n  cli:\n    extends:\n      service: common\n');
    expect(services(model).cli).toEqual({ image: 'busybox', user: 'root' });
  });

  it('sequences are appended without duplicates (security_opt)', async () => {
    const { model } = await load('services:\n  common:\n    image: busybox\n    security_opt:\n      - label:role:ROLE\n  cli:\n    extends:\n      service: common\n    security_opt:\n      - label:user:USER\n      - label:role:ROLE\n');
    expect(services(model).cli!.security_opt).toEqual(['label:role:ROLE', 'label:user:USER']);
  });

  it('command and entrypoint are replaced, ports appended, healthcheck merged with test replaced', async () => {
    const { model } = await load(
      'services:\n  base:\n    image: app\n    command: ["serve", "--old"]\n    ports: ["80"]\n    healthcheck:\n      test: ["CMD", "old"]\n      interval: 5s\n  web:\n    extends: base\n    command: ["serve", "--new"]\n    ports: ["443"]\n    healthcheck:\n      test: ["CMD", "new"]\n',
    );
    expect(services(model).web).toMatchObject({
      command: ['serve', '--new'],
      ports: [{ target: 80 }, { target: 443 }],
      healthcheck: { test: ['CMD', 'new'], interval: '5s' },
    });
  });

  it('extends.file: relative paths of the base resolve against its own file', async () => {
    const { model } = await load('services:\n  web:\n    extends:\n      file: common/base.yaml\n      service: webapp\n    environment:\n      MODE: prod\n', {
      disk: { 'common/base.yaml': 'services:\n  webapp:\n    image: app:1\n    build: ./src\n    volumes: ["./static:/static"]\n    environment:\n      MODE: dev\n      LOG: info\n' },
    });
    expect(services(model).web).toEqual({
      image: 'app:1',
      build: { context: '/srv/app/common/src', dockerfile: 'Dockerfile' },
      volumes: [{ type: 'bind', source: '/srv/app/common/static', target: '/static', bind: { create_host_path: true } }],
      environment: { MODE: 'prod', LOG: 'info' },
    });
  });

  it('refuses a circular chain and a missing base, naming the service', async () => {
    expect(await problemsOf('services:\n  a:\n    image: x\n    extends: b\n  b:\n    image: x\n    extends: a\n  c:\n    image: x\n    extends: nope\n')).toEqual([
      'services.a.extends: circular extends: a → b → a',
      'services.b.extends: circular extends: b → a → b',
      'services.c.extends: service "nope" not found',
    ]);
  });
});

describe('!reset and !override (Compose specification, merge examples)', () => {
  const base = 'services:\n  app:\n    image: myapp\n    ports:\n      - "8080:80"\n    environment:\n      FOO: BAR\n      KEEP: "1"\n';

  it('when several include files are merged: !reset removes what the earlier file set', async () => {
    const { model } = await load('include:\n  - path: [base.yaml, override.yaml]\nservices: {}\n', {
      disk: { 'base.yaml': base, 'override.yaml': 'services:\n  app:\n    image: myapp\n    ports: !reset []\n    environment:\n      FOO: !reset null\n' },
    });
    expect(services(model).app).toEqual({ image: 'myapp', environment: { KEEP: '1' } });
  });

  it('when several include files are merged: !override replaces instead of appending', async () => {
    const { model } = await load('include:\n  - path: [base.yaml, override.yaml]\nservices: {}\n', {
      disk: { 'base.yaml': base, 'override.yaml': 'services:\n  app:\n    ports: !override\n      - "8443:443"\n' },
    });
    expect(services(model).app!.ports).toEqual([{ mode: 'ingress', target: 443, published: '8443', protocol: 'tcp' }]);
  });

  it('in a service that extends another', async () => {
    const { model, warnings } = await load(`${base}  web:\n    extends: app\n    ports: !override ["9090:90"]\n    environment: !reset {}\n`);
    expect(services(model).web).toEqual({ image: 'myapp', ports: [{ mode: 'ingress', target: 90, published: '9090', protocol: 'tcp' }] });
    expect(warnings).toEqual([]);
  });
});

describe('profiles (Compose specification, profiles example)', () => {
  const file = [
    'services:',
    '  foo:\n    image: foo',
    '  bar:\n    image: bar\n    profiles:\n      - test',
    '  baz:\n    image: baz\n    depends_on:\n      - bar\n    profiles:\n      - test',
    '  zot:\n    image: zot\n    depends_on:\n      - bar\n    profiles:\n      - debug',
    '',
  ].join('\n');

  it.each([
    [[], ['foo']],
    [['test'], ['foo', 'bar', 'baz']],
    [['debug', 'test'], ['foo', 'bar', 'baz', 'zot']],
    [['*'], ['foo', 'bar', 'baz', 'zot']],
  ])('active %j → %j', async (profiles, expected) => {
    const { model } = await load(file, { profiles });
    expect(Object.keys(services(model))).toEqual(expected);
  });

  it('COMPOSE_PROFILES (environment or .env) activates profiles when --profile gives none', async () => {
    expect(Object.keys(services((await load(file, { env: { COMPOSE_PROFILES: 'test,debug' } })).model))).toEqual(['foo', 'bar', 'baz', 'zot']);
    expect(Object.keys(services((await load(file, { disk: { '.env': 'COMPOSE_PROFILES=test\n' } })).model))).toEqual(['foo', 'bar', 'baz']);
    expect(Object.keys(services((await load(file, { profiles: ['test'], env: { COMPOSE_PROFILES: 'debug' } })).model))).toEqual(['foo', 'bar', 'baz']);
  });

  it('debug alone is invalid: zot depends on bar, which the active profiles leave out', async () => {
    expect(await problemsOf(file, { profiles: ['debug'] })).toEqual(['services.zot.depends_on.bar: service "bar" is not enabled by the active profiles (debug)']);
  });

  it('an optional dependency on a service left out is dropped with a warning', async () => {
    const { model, warnings } = await load('services:\n  app:\n    image: app\n    depends_on:\n      tools:\n        condition: service_started\n        required: false\n  tools:\n    image: t\n    profiles: [debug]\n');
    expect(services(model).app!.depends_on).toEqual({});
    expect(warnings.join('\n')).toMatch(/optional dependency is dropped/);
  });
});

describe('include (Compose specification, include examples)', () => {
  const db = 'services:\n  db:\n    image: postgres:${PG_VERSION:-15}\n    volumes: ["./init:/docker-entrypoint-initdb.d:ro", "pgdata:/var/lib/postgresql/data"]\nvolumes:\n  pgdata:\n';

  it('short syntax: the included services and volumes join, relative paths resolve against the included file', async () => {
    const { model } = await load('include:\n  - ../commons/db.yaml\nservices:\n  web:\n    image: web\n    depends_on: [db]\n', { disk: { '../commons/db.yaml': db } });
    expect(Object.keys(services(model))).toEqual(['web', 'db']);
    expect(services(model).db).toMatchObject({ image: 'postgres:15', volumes: [{ source: '/srv/commons/init' }, { source: 'pgdata' }] });
    expect(model.volumes).toEqual({ pgdata: {} });
  });

  it('the included project reads its own .env, and the including project wins over it', async () => {
    const files = { '../commons/db.yaml': db.replace('image: postgres', 'environment:\n      WHO: ${WHO}\n    image: postgres'), '../commons/.env': 'PG_VERSION=16\nWHO=included\n' };
    const { model } = await load('include:\n  - ../commons/db.yaml\nservices: {}\n', { disk: files, env: { WHO: 'parent' } });
    expect(services(model).db).toMatchObject({ image: 'postgres:16', environment: { WHO: 'parent' } });
  });

  it('long syntax: several paths merged, project_directory and env_file', async () => {
    const { model } = await load('include:\n  - path: [stack/base.yaml, stack/override.yaml]\n    project_directory: stack\n    env_file: stack/custom.env\nservices: {}\n', {
      disk: {
        'stack/base.yaml': 'services:\n  cache:\n    image: redis:${REDIS_TAG}\n    ports: ["6379"]\n',
        'stack/override.yaml': 'services:\n  cache:\n    command: redis-server --appendonly yes\n    volumes: ["./data:/data"]\n',
        'stack/custom.env': 'REDIS_TAG=7-alpine\n',
      },
    });
    expect(services(model).cache).toEqual({
      image: 'redis:7-alpine',
      ports: [{ mode: 'ingress', target: 6379, protocol: 'tcp' }],
      command: 'redis-server --appendonly yes',
      volumes: [{ type: 'bind', source: '/srv/app/stack/data', target: '/data', bind: { create_host_path: true } }],
    });
  });

  it('a resource defined both here and in the include: the one here is kept, with a warning', async () => {
    const { model, warnings } = await load('include: [other.yaml]\nservices:\n  db:\n    image: mine\n', { disk: { 'other.yaml': 'services:\n  db:\n    image: theirs\n' } });
    expect(services(model).db).toEqual({ image: 'mine' });
    expect(warnings.join('\n')).toMatch(/services\.db from include other\.yaml conflicts/);
  });

  it('problems inside an included file name that file', async () => {
    expect(await problemsOf('include: [bad.yaml]\nservices: {}\n', { disk: { 'bad.yaml': 'services:\n  x:\n    image: 1\n    ports: ["nope"]\n' } })).toEqual([
      'bad.yaml: services.x.image: expected string',
      'bad.yaml: services.x.ports.0: container port "nope" is not a port or a range of ports',
    ]);
  });

  it('refuses a circular include', async () => {
    const problems = await problemsOf('include: [a.yaml]\nservices: {}\n', { disk: { 'a.yaml': 'include: [compose.yaml]\nservices: {}\n', 'compose.yaml': 'include: [a.yaml]\nservices: {}\n' } });
    expect(problems.join('\n')).toMatch(/circular include: compose\.yaml → a\.yaml → compose\.yaml/);
  });
});

describe('variables: the environment, then .env', () => {
  it('interpolates from .env, the given environment winning, and warns about unset names', async () => {
    const { model, warnings } = await load('services:\n  web:\n    image: "app:${TAG}"\n    environment:\n      WHO: ${WHO}\n      EMPTY: ${NOT_SET}\n', {
      disk: { '.env': 'TAG=1.2\nWHO=dotenv\n' },
      env: { WHO: 'process' },
    });
    expect(services(model).web).toEqual({ image: 'app:1.2', environment: { WHO: 'process', EMPTY: '' } });
    expect(warnings).toEqual(['The "NOT_SET" variable is not set. Defaulting to a blank string.']);
  });

  it('keys are not interpolated; the list syntax is how a key gets a variable (interpolation.md)', async () => {
    const { model } = await load('services:\n  foo:\n    image: x\n    labels:\n      "$$VAR_NOT_INTERPOLATED": "BAR"\n', { env: { VAR: 'v' } });
    expect(services(model).foo!.labels).toEqual({ $$VAR_NOT_INTERPOLATED: 'BAR' });
    const listed = await load('services:\n  foo:\n    image: x\n    labels:\n      - "$VAR=BAR"\n', { env: { VAR: 'v' } });
    expect(services(listed.model).foo!.labels).toEqual({ v: 'BAR' });
  });

  it('a name listed without a value takes the environment value; a DENV_ name stays for the host', async () => {
    const { model } = await load('services:\n  web:\n    image: x\n    environment:\n      - FROM_ENV\n      - DENV_DB_PORT\n      - UNSET_ONE\n      - URL=http://${DENV_DB_HOST}:${DENV_DB_PORT}\n', { env: { FROM_ENV: 'yes' } });
    expect(services(model).web!.environment).toEqual({ FROM_ENV: 'yes', DENV_DB_PORT: null, UNSET_ONE: null, URL: 'http://${DENV_DB_HOST}:${DENV_DB_PORT}' });
  });

  it('env_file: string, list and long form merged in order, environment winning; no env_file left', async () => {
    const { model } = await load(
      'services:\n  web:\n    image: x\n    env_file:\n      - common.env\n      - path: ./local.env\n        required: false\n      - path: ./prod.env\n    environment:\n      LEVEL: from-environment\n',
      { disk: { 'common.env': 'LEVEL=common\nA=1\nB=${A_VAR:-dflt}\n', 'prod.env': 'export A=2\nC="quoted # kept"\n' } },
    );
    expect(services(model).web).toEqual({ image: 'x', environment: { LEVEL: 'from-environment', A: '2', B: 'dflt', C: 'quoted # kept' } });
  });

  it('a required env_file that is missing is a problem; ${VAR:?msg} too', async () => {
    expect(await problemsOf('services:\n  web:\n    image: "${IMAGE:?set IMAGE to the image to run}"\n    env_file: missing.env\n')).toEqual([
      'services.web.image: required variable IMAGE is missing a value: set IMAGE to the image to run',
      'services.web.env_file: env file /srv/app/missing.env not found (mark it `required: false` if it is optional)',
    ]);
  });
});

describe('canonical form (like docker compose config)', () => {
  const text = [
    'name: shop',
    'version: "3.9"',
    'x-denv.agent.service: web',
    'x-denv:',
    '  edge:',
    '    hostnames: [shop.example.com]',
    'services:',
    '  web:',
    '    build:',
    '      context: ./web',
    '      args: ["NODE_ENV=production", "VERSION"]',
    '      target: runtime',
    '    command: node server.js --price $$5',
    '    expose: [3000, "3001"]',
    '    labels: ["traefik.enable=true", "com.example.flag"]',
    '    networks: [front, back]',
    '    secrets: [db_password, {source: api_key, target: /run/keys/api, mode: 0400}]',
    '    configs: [{source: app_conf, target: /etc/app.conf}]',
    '    depends_on:',
    '      db: {condition: service_healthy}',
    '    tty: "${TTY:-true}"',
    '    healthcheck:',
    '      test: ["CMD-SHELL", "curl -f http://localhost:3000/ || exit 1"]',
    '      retries: "${RETRIES:-3}"',
    '  db:',
    '    image: postgres:16',
    '    networks:',
    '      back: {aliases: [database]}',
    'networks: {front: , back: {driver: bridge}}',
    'secrets:',
    '  db_password: {file: ./secrets/db.txt}',
    '  api_key: {environment: API_KEY}',
    'configs:',
    '  app_conf: {file: ../conf/app.conf}',
    '',
  ].join('\n');

  it('prints every field in its canonical form', async () => {
    const { model, warnings } = await load(text, { env: { VERSION: '2.0' } });
    expect(warnings).toEqual(['compose.yaml: the attribute "version" is obsolete and ignored']);
    expect(Object.keys(model)).toEqual(['name', 'services', 'networks', 'secrets', 'configs', 'x-denv.agent.service', 'x-denv']);
    expect(model['x-denv.agent.service']).toBe('web');
    expect(model['x-denv']).toEqual({ edge: { hostnames: ['shop.example.com'] } });
    expect(services(model).web).toEqual({
      build: { context: '/srv/app/web', dockerfile: 'Dockerfile', args: { NODE_ENV: 'production', VERSION: '2.0' }, target: 'runtime' },
      command: 'node server.js --price $$5',
      expose: ['3000', '3001'],
      labels: { 'traefik.enable': 'true', 'com.example.flag': '' },
      networks: { front: null, back: null },
      secrets: [{ source: 'db_password' }, { source: 'api_key', target: '/run/keys/api', mode: 0o400 }],
      configs: [{ source: 'app_conf', target: '/etc/app.conf' }],
      depends_on: { db: { condition: 'service_healthy', required: true, restart: false } },
      tty: true,
      healthcheck: { test: ['CMD-SHELL', 'curl -f http://localhost:3000/ || exit 1'], retries: 3 },
    });
    expect(services(model).db!.networks).toEqual({ back: { aliases: ['database'] } });
    expect(model.networks).toEqual({ front: {}, back: { driver: 'bridge' } });
    expect(model.secrets).toEqual({ db_password: { file: '/srv/app/secrets/db.txt' }, api_key: { environment: 'API_KEY' } });
    expect(model.configs).toEqual({ app_conf: { file: '/srv/conf/app.conf' } });
  });

  it('loading the model again (on the server, with no files) gives it back unchanged', async () => {
    const first = await load(text, { env: { VERSION: '2.0', PRICE: 'a$b' } });
    const again = await loadCompose({ text: JSON.stringify(first.model), projectDir: '/elsewhere', env: {}, files: null });
    expect(again.model).toEqual(first.model);
    expect(again.warnings).toEqual([]);
  });
});

describe('problems', () => {
  it('lists every problem at once, each with its path', async () => {
    const problems = await problemsOf(
      [
        'services:',
        '  web:',
        '    image: nginx',
        '    ports: ["80:80", "http"]',
        '    unknown_field: 1',
        '    healthcheck: {test: 5}',
        '    depends_on: [ghost]',
        '    volumes: [data:/x]',
        '    networks: [back]',
        '    secrets: [nope]',
        '  worker:',
        '    image: 5',
        '    command: echo $1',
        '',
      ].join('\n'),
    );
    expect(problems).toEqual([
      'services.worker.command: invalid interpolation format in "echo $1": write a literal $ as $$',
      'services.web.unknown_field: not allowed here by the Compose specification',
      'services.web.healthcheck.test: expected string or array',
      'services.worker.image: expected string',
      'services.web.ports.1: container port "http" is not a port or a range of ports',
      'services.web.depends_on.ghost: service "ghost" is not defined',
      'services.web.volumes.0: volume "data" is not declared under the top-level "volumes"',
      'services.web.networks.back: network "back" is not declared under the top-level "networks"',
      'services.web.secrets.0: secret "nope" is not declared under the top-level "secrets"',
    ]);
  });

  it.each([
    ['', 'compose.yaml: is empty: a Compose file needs at least "services"'],
    ['- a\n- b\n', 'compose.yaml: expected a mapping with "services" at the top'],
    ['services: [\n', 'compose.yaml: not valid YAML'],
    ['services:\n  web: {image: x}\nservices:\n  db: {image: y}\n', 'compose.yaml: not valid YAML'],
  ])('%j', async (text, problem) => {
    expect((await problemsOf(text))[0]).toContain(problem);
  });

  it('without file access (the server), what needs files is refused with the way out', async () => {
    const problems = await problemsOf('include: [db.yaml]\nservices:\n  web:\n    image: x\n    env_file: web.env\n  api:\n    extends: {file: base.yaml, service: api}\n', { files: null });
    expect(problems).toEqual([
      'services.web.env_file: env_file needs files; send it with the CLI (`denv deploy -f`), which loads them',
      'services.api.extends.file: extends.file needs files; send it with the CLI (`denv deploy -f`), which loads them',
      'include.0: include needs files; send it with the CLI (`denv deploy -f`), which loads them',
    ]);
  });

  it('without file access, .env is not read', async () => {
    const { model } = await loadCompose({ text: 'services:\n  web:\n    image: "x:${TAG:-latest}"\n', projectDir: ROOT, env: {}, files: null });
    expect(services(model).web!.image).toBe('x:latest');
  });
});
