import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildComposeFile, escapeDollars, type ComposeInput } from './compose-file.js';

const DIGEST = `sha256:${'b'.repeat(64)}`;
const base: ComposeInput = {
  service: 'web',
  image: `127.0.0.1:5000/team/web@${DIGEST}`,
  network: 'host',
  envNetwork: null,
  port: 24001,
  containerPort: null,
  envFile: '/dev/shm/denv-0-abc/env_1.web-12345678/0123.env',
  environment: { DENV_SERVICE: 'web', DENV_ENV: 'env_1' },
  volumes: [],
  entrypoint: null,
  command: null,
  workingDir: null,
  healthcheck: null,
  labels: { 'dev.denv.slot': 'env_1/web', 'dev.denv.agent': 'a1b2c3d4' },
};

describe('buildComposeFile', () => {
  it('host networking: PORT, the env file, init, restart, sorted env and labels', () => {
    expect(buildComposeFile(base)).toBe(`# Written by the denv agent for one slot; rewritten on every deploy.
version: "2.4"
services:
  web:
    image: 127.0.0.1:5000/team/web@${DIGEST}
    init: true
    restart: unless-stopped
    stop_grace_period: 10s
    network_mode: host
    env_file:
      - /dev/shm/denv-0-abc/env_1.web-12345678/0123.env
    environment:
      DENV_ENV: env_1
      DENV_SERVICE: web
      PORT: "24001"
    labels:
      dev.denv.agent: a1b2c3d4
      dev.denv.slot: env_1/web
`);
  });

  it('bridge networking: the env network under the service name, published on 127.0.0.1 only, PORT = container port; mounts, command, healthcheck; $ kept literal', () => {
    const text = buildComposeFile({
      ...base,
      network: 'bridge',
      envNetwork: 'denv-env_1',
      containerPort: 80,
      envFile: null,
      volumes: [
        { source: '/var/lib/denv/datasets/env_1/live/data', target: '/data', read_only: false },
        { source: '/srv/ro', target: '/config', read_only: true },
      ],
      entrypoint: ['/bin/app'],
      command: ['serve', '--port', '$PORT'],
      workingDir: '/app',
      healthcheck: { test: ['CMD-SHELL', 'wget -q -O- http://127.0.0.1:$PORT/healthz'], interval_ms: 1000, timeout_ms: 2500, retries: 3, start_period_ms: 0 },
    });
    expect(text).toBe(`# Written by the denv agent for one slot; rewritten on every deploy.
version: "2.4"
services:
  web:
    image: 127.0.0.1:5000/team/web@${DIGEST}
    init: true
    restart: unless-stopped
    stop_grace_period: 10s
    entrypoint:
      - /bin/app
    command:
      - serve
      - --port
      - $$PORT
    working_dir: /app
    networks:
      env:
        aliases:
          - web
    ports:
      - 127.0.0.1:24001:80
    environment:
      DENV_ENV: env_1
      DENV_SERVICE: web
      PORT: "80"
    volumes:
      - /var/lib/denv/datasets/env_1/live/data:/data
      - /srv/ro:/config:ro
    healthcheck:
      test:
        - CMD-SHELL
        - wget -q -O- http://127.0.0.1:$$PORT/healthz
      interval: 1000ms
      timeout: 2500ms
      retries: 3
      start_period: 0ms
    labels:
      dev.denv.agent: a1b2c3d4
      dev.denv.slot: env_1/web
networks:
  env:
    external: true
    name: denv-env_1
`);
    expect(parse(text).services.web.ports).toEqual(['127.0.0.1:24001:80']);
  });

  it('user, limits (no swap beyond the memory limit), stop signal and grace period, restart "no" quoted for YAML 1.1 readers', () => {
    const text = buildComposeFile({
      ...base,
      environment: { FLAG: 'on' },
      user: '999:999',
      restart: 'no',
      stopSignal: 'SIGINT',
      stopGraceMs: 2500,
      limits: { memory_bytes: 67108864, cpus: 0.5, pids: 100 },
    });
    expect(text).toBe(`# Written by the denv agent for one slot; rewritten on every deploy.
version: "2.4"
services:
  web:
    image: 127.0.0.1:5000/team/web@${DIGEST}
    init: true
    restart: "no"
    stop_grace_period: 3s
    stop_signal: SIGINT
    user: 999:999
    mem_limit: 67108864
    memswap_limit: 67108864
    cpus: 0.5
    pids_limit: 100
    network_mode: host
    env_file:
      - /dev/shm/denv-0-abc/env_1.web-12345678/0123.env
    environment:
      FLAG: "on"
      PORT: "24001"
    labels:
      dev.denv.agent: a1b2c3d4
      dev.denv.slot: env_1/web
`);
    expect(buildComposeFile({ ...base, restart: 'on-failure', limits: { memory_bytes: null, cpus: null, pids: null } })).toContain('restart: on-failure\n    stop_grace_period: 10s\n    network_mode: host\n');
  });

  it('publishes PORT itself when the spec declares no container port, and refuses ":" in mount paths', () => {
    expect(buildComposeFile({ ...base, network: 'bridge' })).toContain('ports:\n      - 127.0.0.1:24001:24001\n');
    expect(() => buildComposeFile({ ...base, volumes: [{ source: '/a:b', target: '/d', read_only: false }] })).toThrow(/cannot contain ":"/);
  });

  it('escapes every $ in strings, recursively', () => {
    expect(escapeDollars({ a: ['$X', { b: 'p$$q' }], n: 1 })).toEqual({ a: ['$$X', { b: 'p$$$$q' }], n: 1 });
  });

  it('a read-only root filesystem and tmpfs mounts (Compose read_only, tmpfs)', () => {
    const svc = parse(buildComposeFile({ ...base, readOnly: true, tmpfs: ['/tmp', '/run'] })).services.web;
    expect([svc.read_only, svc.tmpfs]).toEqual([true, ['/tmp', '/run']]);
    expect(parse(buildComposeFile(base)).services.web).not.toHaveProperty('read_only');
  });
});
