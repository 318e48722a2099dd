/**
 * The Compose corpus (test/compose-corpus/<app>/compose.yaml: real-world-style apps written for
 * denv, with their .env, env files, included and extended files) loaded through the real CLI:
 * `node bin/denv config -f <file> --format json`, as a user runs it. Needs `npm run build`
 * (dist/) like test/cli.test.ts. Each app asserts the normalised values that matter for it, not
 * only that it loaded; together they cover every field issue 9 names.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DENV_BIN } from './helpers/processes.js';

const CORPUS = fileURLToPath(new URL('./compose-corpus/', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node bin/denv config …` with only the variables given (plus PATH and a fixed HOME), so the caller's shell cannot steer it. */
function denvConfig(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DENV_BIN, 'config', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/home/tester', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

/** The printed model, walked loosely by the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const file = (app: string): string => path.join(CORPUS, app, 'compose.yaml');
const dir = (app: string, ...rest: string[]): string => path.join(CORPUS, app, ...rest);

async function loadApp(app: string, opts: { profiles?: string[]; env?: Record<string, string> } = {}): Promise<Json> {
  const args = ['-f', file(app), '--format', 'json', ...(opts.profiles ?? []).flatMap((p) => ['--profile', p])];
  const run = await denvConfig(args, opts.env);
  // Only the list of fields denv accepts without effect may be on stderr (cosmetic-fields checks its content).
  expect(run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('ignored (no effect under denv): ')), `stderr of denv config for ${app}`).toEqual([]);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Json;
}

/** app → its checks. Every directory of the corpus must have an entry (checked below). */
const CASES: Record<string, (m: Json) => void | Promise<void>> = {
  'wordpress-mariadb': (m) => {
    expect(m.name).toBe('blog');
    expect(m.services.db.environment).toEqual({ MARIADB_DATABASE: 'wordpress', MARIADB_USER: 'wordpress', MARIADB_PASSWORD: 'correct-horse', MARIADB_RANDOM_ROOT_PASSWORD: '1' });
    expect(m.services.wordpress.ports).toEqual([{ mode: 'ingress', target: 80, published: '8081', protocol: 'tcp' }]);
    expect(m.services.wordpress.depends_on).toEqual({ db: { condition: 'service_healthy', required: true, restart: false } });
    expect(m.services.db.volumes).toEqual([{ type: 'volume', source: 'db_data', target: '/var/lib/mysql', volume: {} }]);
    expect(m.volumes).toEqual({ db_data: {}, wp_content: {} });
  },
  'postgres-pgadmin': (m) => {
    expect(m.services.pgadmin.env_file).toBeUndefined();
    expect(m.services.pgadmin.environment).toEqual({ PGADMIN_DEFAULT_EMAIL: 'admin@example.com', PGADMIN_DEFAULT_PASSWORD: 's3cr3t$$pass', PGADMIN_CONFIG_SERVER_MODE: 'False' });
    expect(m.services.postgres.ports).toEqual([{ mode: 'ingress', host_ip: '127.0.0.1', target: 5432, published: '5432', protocol: 'tcp' }]);
    expect(m.services.pgadmin.ports).toEqual([{ mode: 'ingress', target: 80, published: '5050', protocol: 'tcp' }]);
    expect(m.services.postgres.healthcheck).toEqual({ test: ['CMD-SHELL', 'pg_isready -U admin'], interval: '5s', start_period: '10s' });
  },
  'node-redis': (m) => {
    expect(m.services.app.build).toEqual({ context: dir('node-redis', 'app'), dockerfile: 'Dockerfile' });
    expect(m.services.app.environment).toEqual({ REDIS_URL: 'redis://redis:6379/0', NODE_ENV: 'production', PORT: '3000' });
    expect(m.services.app.ports).toEqual([{ mode: 'ingress', target: 3000, protocol: 'tcp' }]);
    expect(m.services.redis.expose).toEqual(['6379']);
    expect(m.services.redis.command).toEqual(['redis-server', '--save', '60', '1', '--loglevel', 'warning']);
    expect(m.services.app.command).toBe('node dist/index.js');
    expect(m.services.app.restart).toBe('on-failure:3');
  },
  'nginx-proxy': (m) => {
    expect(m.configs).toEqual({ nginx_conf: { file: dir('nginx-proxy', 'nginx/nginx.conf') }, site_conf: { file: dir('nginx-proxy', 'nginx/default.conf') } });
    expect(m.services.proxy.configs).toEqual([
      { source: 'nginx_conf', target: '/etc/nginx/nginx.conf' },
      { source: 'site_conf', target: '/etc/nginx/conf.d/default.conf' },
    ]);
    expect(Object.keys(m.services.proxy.depends_on)).toEqual(['api', 'static']);
    expect(m.services.proxy.volumes[0]).toEqual({ type: 'bind', source: dir('nginx-proxy', 'certs'), target: '/etc/nginx/certs', read_only: true, bind: { create_host_path: true } });
    expect(m.services.api.expose).toEqual(['8000']);
  },
  'django-build': (m) => {
    expect(m.services.web.build).toEqual({ context: dir('django-build'), dockerfile: 'docker/Dockerfile', target: 'production', args: { PYTHON_VERSION: '3.12', REQUIREMENTS: 'requirements/prod.txt' } });
    expect(m.services.web.depends_on).toEqual({
      db: { condition: 'service_healthy', required: true, restart: true },
      cache: { condition: 'service_started', required: true, restart: false },
    });
    expect(m.services.web.environment.DATABASE_URL).toBe('postgres://shop:shop@db:5432/shop');
    expect(m.services.db.healthcheck.retries).toBe(10);
  },
  'prometheus-grafana': (m) => {
    expect(m.services.prometheus.command).toEqual(['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.retention.time=15d']);
    expect(m.services.prometheus.configs).toEqual([{ source: 'prometheus_config', target: '/etc/prometheus/prometheus.yml' }]);
    expect(m.configs.prometheus_config.file).toBe(dir('prometheus-grafana', 'prometheus.yml'));
    expect(m.volumes).toEqual({ 'prometheus-data': {}, 'grafana-data': { driver: 'local' } });
    expect(m.services.grafana.environment).toEqual({ GF_SECURITY_ADMIN_PASSWORD: 'admin', GF_USERS_ALLOW_SIGN_UP: 'false' });
    expect(m.services.grafana.volumes[1]).toMatchObject({ type: 'bind', source: dir('prometheus-grafana', 'provisioning'), read_only: true });
  },
  'traefik-labels': (m) => {
    expect(m.services.whoami.labels).toEqual({
      'traefik.enable': 'true',
      'traefik.http.routers.whoami.rule': 'Host(`whoami.localhost`)',
      'traefik.http.routers.whoami.entrypoints': 'web',
    });
    expect(m.services.api.labels).toEqual({ 'traefik.enable': 'true', 'traefik.http.services.api.loadbalancer.server.port': '8000' });
    expect(m.services.traefik.volumes).toEqual([{ type: 'bind', source: '/var/run/docker.sock', target: '/var/run/docker.sock', read_only: true, bind: { create_host_path: true } }]);
    expect(m.services.traefik.ports[1]).toEqual({ mode: 'ingress', host_ip: '127.0.0.1', target: 8080, published: '8080', protocol: 'tcp' });
  },
  'mongo-secrets': (m) => {
    expect(m.secrets).toEqual({ mongo_root_password: { file: dir('mongo-secrets', 'secrets/root_password.txt') }, mongo_url: { file: dir('mongo-secrets', 'secrets/url.txt') } });
    expect(m.services.mongo.secrets).toEqual([{ source: 'mongo_root_password' }]);
    // 0440 is octal, as in Compose
    expect(m.services['mongo-express'].secrets).toEqual([{ source: 'mongo_url', target: 'mongo_url', mode: 0o440 }]);
  },
  gitea: (m) => {
    expect(m.services.gitea.user).toBe('1000:1000');
    expect(m.services['gitea-db'].user).toBe('postgres');
    expect(m.services.gitea.environment).toMatchObject({ USER_UID: '1000', GITEA__database__PASSWD: 'gitea' });
    expect(m.services.gitea.ports.map((p: Json) => `${p.published}->${p.target}`)).toEqual(['3000->3000', '2222->22']);
    expect(m.services.gitea.restart).toBe('always');
  },
  'nextcloud-anchors': (m) => {
    // merge keys: both services get the anchored fields; cron extends the anchored environment
    expect(m.services.app).toMatchObject({ image: 'nextcloud:29-apache', restart: 'unless-stopped', volumes: [{ type: 'volume', source: 'nextcloud', target: '/var/www/html' }] });
    expect(m.services.cron.entrypoint).toBe('/cron.sh');
    expect(m.services.cron.environment).toEqual({ POSTGRES_HOST: 'db', POSTGRES_DB: 'nextcloud', POSTGRES_USER: 'nextcloud', POSTGRES_PASSWORD: 'nextcloud', REDIS_HOST: 'redis', CRON_ONLY: '1' });
    expect(m.services.app.environment.CRON_ONLY).toBeUndefined();
    expect(m['x-nextcloud'].image).toBe('nextcloud:29-apache');
  },
  'minio-healthcheck': (m) => {
    expect(m.services.minio.command).toBe('server /data --console-address ":9001"');
    expect(m.services.minio.ports).toEqual([
      { mode: 'ingress', target: 9000, published: '9000', protocol: 'tcp' },
      { mode: 'ingress', target: 9001, published: '9001', protocol: 'tcp' },
    ]);
    expect(m.services.minio.healthcheck.test).toEqual(['CMD-SHELL', 'curl -fsS http://localhost:9000/minio/health/live || exit 1']);
    expect(m.services.createbuckets.entrypoint).toContain('mc alias set local http://minio:9000 $${MINIO_ROOT_USER} $${MINIO_ROOT_PASSWORD};');
    // a name listed without a value and not in the environment stays unset
    expect(m.services.createbuckets.environment).toEqual({ MINIO_ROOT_USER: null, MINIO_ROOT_PASSWORD: 'minioadmin' });
  },
  'profiles-debug': (m) => {
    expect(Object.keys(m.services)).toEqual(['app', 'db']);
  },
  'include-shared-db': (m) => {
    expect(Object.keys(m.services)).toEqual(['api', 'db']);
    // the included file reads its own .env (PG_MAJOR) and the including project's wins (password)
    expect(m.services.db.image).toBe('postgres:16');
    expect(m.services.db.environment.POSTGRES_PASSWORD).toBe('from-main-env');
    expect(m.services.db.volumes[1].source).toBe(dir('include-shared-db', 'shared/initdb'));
    expect(m.volumes).toEqual({ 'orders-db': {} });
    expect(m.include).toBeUndefined();
  },
  'extends-base': (m) => {
    expect(m.services.web).toEqual({
      image: 'ghcr.io/example/rails-app:5.1.0',
      environment: { RAILS_ENV: 'production', RAILS_MAX_THREADS: '5', REDIS_URL: 'redis://redis:6379/1', ROLE: 'web' },
      volumes: [{ type: 'bind', source: dir('extends-base', 'storage'), target: '/rails/storage', bind: { create_host_path: true } }],
      depends_on: { redis: { condition: 'service_started', required: true, restart: false } },
      restart: 'unless-stopped',
      command: ['bundle', 'exec', 'puma', '-C', 'config/puma.rb'],
      ports: [{ mode: 'ingress', target: 3000, published: '3000', protocol: 'tcp' }],
    });
    expect(m.services.worker.environment).toMatchObject({ ROLE: 'worker', RAILS_MAX_THREADS: '10' });
    expect(m.services.worker.command).toEqual(['bundle', 'exec', 'sidekiq']);
  },
  'envfile-interpolation': (m) => {
    expect(m.services.api.image).toBe('ghcr.io/example/api:2024.09');
    expect(m.services.api.env_file).toBeUndefined();
    expect(m.services.api.environment).toEqual({
      CACHE_TTL: '300',
      GREETING: 'Hello, shop.example.org!',
      QUOTED: 'no $${interpolation} here',
      LOG_LEVEL: 'debug',
      TOKEN: 'abc$$def"raw"',
      PUBLIC_URL: 'https://shop.example.org/api',
      FEATURE_FLAGS: '',
    });
  },
  'dollar-command': (m) => {
    expect(m.services.ticker.command[2]).toBe('while true; do echo "tick $$(date +%s) on $${HOSTNAME}"; sleep 5; done');
    expect(m.services.ticker.environment).toEqual({ PRICE: '$$5.00', DB_URL: 'postgres://${DENV_DB_HOST}:${DENV_DB_PORT}/app' });
  },
  'resources-limits': (m) => {
    expect(m.services.api.deploy.resources).toEqual({ limits: { cpus: '1.5', memory: '512M', pids: 200 }, reservations: { cpus: '0.25', memory: '128M' } });
    expect(m.services.api.deploy.update_config.order).toBe('start-first');
    expect(m.services.db.deploy.update_config.order).toBe('stop-first');
    expect(m.services.worker).toMatchObject({ mem_limit: '256m', mem_reservation: '64m', cpus: 0.5, pids_limit: 100 });
  },
  'stop-signals': (m) => {
    expect(m.services.postgres).toMatchObject({ stop_signal: 'SIGINT', stop_grace_period: '1m30s', restart: 'unless-stopped' });
    expect(m.services.nginx).toMatchObject({ stop_signal: 'SIGQUIT', stop_grace_period: '30s', restart: 'always' });
    expect(m.services.migrate.restart).toBe('no');
    expect(m.services.queue.restart).toBe('on-failure:5');
  },
  'networks-aliases': (m) => {
    expect(m.services.frontend.networks).toEqual({ 'front-tier': null, 'back-tier': null });
    expect(m.services.backend.networks).toEqual({ 'back-tier': { aliases: ['database'] }, admin: { aliases: ['mysql'] } });
    expect(m.networks).toEqual({ 'front-tier': {}, 'back-tier': { internal: true }, admin: { driver: 'bridge', ipam: { config: [{ subnet: '172.28.0.0/16' }] } } });
  },
  'long-bind-mounts': (m) => {
    expect(m.services.app.read_only).toBe(true);
    expect(m.services.app.volumes).toEqual([
      { type: 'bind', source: dir('long-bind-mounts', 'config/app.toml'), target: '/etc/app/app.toml', read_only: true },
      { type: 'bind', source: dir('long-bind-mounts', 'uploads'), target: '/var/lib/app/uploads', bind: { create_host_path: true } },
      { type: 'volume', source: 'cache', target: '/var/cache/app', volume: { nocopy: true } },
      { type: 'tmpfs', target: '/tmp', tmpfs: { size: '64m' } },
    ]);
  },
  'cosmetic-fields': (m) => {
    expect(m.services.shell).toMatchObject({
      container_name: 'dev-shell',
      hostname: 'devbox',
      domainname: 'example.internal',
      labels: { 'com.example.team': 'platform', 'com.example.purpose': 'interactive shell' },
      logging: { driver: 'json-file', options: { 'max-size': '10m', 'max-file': '3' } },
      tty: true,
      stdin_open: true,
      init: true,
      working_dir: '/work',
    });
  },
  'build-args-target': (m) => {
    expect(m.services.frontend.build).toEqual({
      context: dir('build-args-target', 'frontend'),
      dockerfile: 'Dockerfile.prod',
      target: 'runtime',
      args: { NODE_VERSION: '20', API_URL: 'https://api.example.com', GIT_SHA: null },
      cache_from: ['ghcr.io/example/frontend:cache'],
      labels: { 'org.opencontainers.image.source': 'https://example.com/frontend' },
    });
    expect(m.services.frontend.image).toBe('ghcr.io/example/frontend:dev');
    expect(m.services.tools).toBeUndefined(); // profile tools not active
  },
  'secrets-configs': (m) => {
    expect(m.services.app.secrets).toEqual([{ source: 'db_password' }, { source: 'tls_key', target: '/etc/tls/server.key', uid: '1000', gid: '1000', mode: 0o400 }]);
    expect(m.services.app.configs).toEqual([{ source: 'app_settings' }, { source: 'motd', target: '/etc/motd' }]);
    expect(m.secrets).toEqual({
      db_password: { file: dir('secrets-configs', 'secrets/db_password.txt') },
      tls_key: { file: dir('secrets-configs', 'secrets/server.key') },
      api_token: { environment: 'API_TOKEN' },
    });
    expect(m.configs).toEqual({ app_settings: { file: dir('secrets-configs', 'config/settings.json') }, motd: { content: 'Welcome to the app\n' } });
  },
  'denv-process-app': (m) => {
    expect(m['x-denv.agent.service']).toBe('api');
    expect(m['x-denv']).toEqual({ verifier: { command: ['node', 'grade.js'], timeout: '2m' } });
    expect(m.services.api).toMatchObject({
      command: ['node', 'server.js'],
      working_dir: './api', // as written: the CLI's deploy resolves process working dirs
      environment: { DATABASE_URL: 'postgres://app@${DENV_DB_HOST}:${DENV_DB_PORT}/app', NODE_ENV: 'production' },
      'x-denv': { health: { path: '/healthz', timeout: '10s' } },
    });
    expect(m.services.db.command).toEqual(['postgres', '-D', '${DENV_VOLUME_PGDATA}', '-k', '/tmp']);
    expect(m.services.db.user).toBe('postgres');
    expect(m.services.db.healthcheck).toEqual({ test: ['CMD', 'pg_isready', '-h', '127.0.0.1', '-p', '${DENV_DB_PORT}'], interval: '1s', retries: 30 });
  },
  'mysql-adminer-expose': (m) => {
    expect(m.services.mysql.expose).toEqual(['3306', '33060']);
    expect(m.services.mysql.command).toBe('--mysql-native-password=ON');
    expect(m.services.adminer.ports).toEqual([{ mode: 'host', target: 8080, published: '8088', protocol: 'tcp' }]);
    expect(m.secrets.root.file).toBe(dir('mysql-adminer-expose', 'root-password.txt'));
  },
  'rabbit-worker-scale': (m) => {
    for (const name of ['emails', 'reports']) {
      expect(m.services[name]).toMatchObject({
        image: 'ghcr.io/example/jobs:0.9',
        environment: { AMQP_URL: 'amqp://guest:guest@rabbitmq:5672/' },
        depends_on: { rabbitmq: { condition: 'service_healthy', required: true, restart: false } },
      });
    }
    expect(m.services.reports.deploy).toEqual({ replicas: 1 });
    expect(m.services.rabbitmq.expose).toEqual(['5672']);
    expect(m.services.rabbitmq.healthcheck.test).toBe('rabbitmq-diagnostics -q ping');
  },
};

describe('compose corpus through `denv config`', () => {
  it('every app of the corpus has its checks (at least 22 apps)', () => {
    const apps = readdirSync(CORPUS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(apps.length).toBeGreaterThanOrEqual(22);
    expect(Object.keys(CASES).sort()).toEqual(apps);
  });

  // Variables an app reads where it is loaded (secrets from the environment), as its user would have them set.
  const APP_ENV: Record<string, Record<string, string>> = { 'secrets-configs': { API_TOKEN: 'token-from-the-shell' } };
  for (const [app, check] of Object.entries(CASES)) {
    it(app, async () => {
      await check(await loadApp(app, { env: APP_ENV[app] ?? {} }));
    });
  }

  it('cosmetic-fields: lists on stderr what denv accepts without effect', async () => {
    const run = await denvConfig(['-f', file('cosmetic-fields'), '--format', 'json']);
    expect(run.code).toBe(0);
    expect(run.stderr.trim()).toBe('ignored (no effect under denv): services.shell.container_name, services.shell.hostname, services.shell.domainname, services.shell.labels, services.shell.logging, services.shell.tty, services.shell.stdin_open');
  });

  it('a field denv refuses makes denv config exit non-zero, naming it and why', async () => {
    const tmpDir = mkdtempSync(path.join(tmpdir(), 'denv-refused-'));
    const tmp = path.join(tmpDir, 'compose.yaml');
    writeFileSync(tmp, 'services:\n  web:\n    image: nginx\n    privileged: true\n    deploy: {replicas: 3}\n');
    try {
      const refused = await denvConfig(['-f', tmp]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('services.web.privileged: not supported by denv: a service gets no privileges on its host');
      expect(refused.stderr).toContain('services.web.deploy.replicas: not supported by denv: one copy per service per env');
    } finally {
      rmSync(tmpDir, { recursive: true, force: true });
    }
  });

  it('profiles-debug: --profile adds the services of that profile', async () => {
    expect(Object.keys((await loadApp('profiles-debug', { profiles: ['debug'] })).services)).toEqual(['app', 'db', 'adminer', 'mailpit']);
    expect(Object.keys((await loadApp('profiles-debug', { profiles: ['mail'] })).services)).toEqual(['app', 'db', 'mailpit']);
    expect(Object.keys((await loadApp('profiles-debug', { profiles: ['bench', 'debug'] })).services)).toEqual(['app', 'db', 'adminer', 'mailpit', 'loadtest']);
  });

  it('the environment wins over .env', async () => {
    const m = await loadApp('wordpress-mariadb', { env: { WP_DB_PASSWORD: 'from-shell', WP_PORT: '9999' } });
    expect(m.services.db.environment.MARIADB_PASSWORD).toBe('from-shell');
    expect(m.services.wordpress.ports[0].published).toBe('9999');
  });

  it('the default YAML output is the same model', async () => {
    const run = await denvConfig(['-f', file('extends-base')]);
    expect(run.code).toBe(0);
    expect(parseYaml(run.stdout)).toEqual(await loadApp('extends-base'));
  });

  it('warns on stderr about an unset variable and goes on', async () => {
    const run = await denvConfig(['-f', file('envfile-interpolation'), '--format', 'json'], { API_TAG: '', FEATURE_FLAGS: '' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).services.api.image).toBe('ghcr.io/example/api:latest');
  });
});

describe('`denv config` on broken files', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'denv-config-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('exits non-zero listing every problem with its path', async () => {
    const broken = path.join(tmp, 'compose.yaml');
    writeFileSync(broken, 'services:\n  web:\n    image: nginx\n    ports: ["80:80", "eighty"]\n    restart_policy: always\n    env_file: missing.env\n    depends_on: [db]\n  api:\n    image: "${API_IMAGE:?set API_IMAGE}"\n');
    const run = await denvConfig(['-f', broken]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('error (INVALID_COMPOSE): invalid Compose file (5 problems):');
    expect(lines.slice(1).map((l) => l.trim()).sort()).toEqual(
      [
        'services.api.image: required variable API_IMAGE is missing a value: set API_IMAGE',
        'services.web.restart_policy: not allowed here by the Compose specification',
        'services.web.ports.1: container port "eighty" is not a port or a range of ports',
        `services.web.env_file: env file ${path.join(tmp, 'missing.env')} not found (mark it \`required: false\` if it is optional)`,
        'services.web.depends_on.db: service "db" is not defined',
      ].sort(),
    );
  });

  it('a missing file is NOT_FOUND', async () => {
    const run = await denvConfig(['-f', path.join(tmp, 'nope.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \(NOT_FOUND\): no compose file at /);
  });

  it('an unknown --format is a usage error', async () => {
    const run = await denvConfig(['-f', file('gitea'), '--format', 'toml']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/error \(USAGE\).*toml/);
  });
});
