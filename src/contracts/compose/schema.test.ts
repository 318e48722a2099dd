/** The official Compose schema through ajv: valid Compose passes, every problem is named by its path in plain words. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPOSE_SPEC_SCHEMA } from './compose-spec-schema.js';
import { pointerToPath, validateComposeSchema } from './schema.js';
import { validatorModule } from './schema-validator-source.js';

describe('validateComposeSchema', () => {
  it('accepts the many shapes Compose allows', () => {
    expect(
      validateComposeSchema({
        name: 'demo',
        include: ['a.yaml', { path: ['b.yaml'], project_directory: '.', env_file: '.env' }],
        services: {
          web: {
            image: 'nginx',
            build: { context: '.', args: ['A=1'], target: 't' },
            ports: [80, '8080:80', { target: 443, published: '8443' }],
            environment: ['A=1', 'B'],
            env_file: ['a.env', { path: 'b.env', required: false }],
            depends_on: { db: { condition: 'service_healthy', restart: true } },
            healthcheck: { test: 'curl -f localhost', interval: '5s' },
            deploy: { resources: { limits: { cpus: '0.5', memory: '256M' } }, update_config: { order: 'stop-first' } },
            extends: { service: 'base', file: 'common.yaml' },
            profiles: ['debug'],
            'x-denv': { health: { path: '/healthz' } },
          },
          db: { image: 'postgres', volumes: ['data:/var/lib/postgresql/data', { type: 'bind', source: '.', target: '/x' }] },
        },
        volumes: { data: null },
        'x-denv.agent.service': 'web',
      }),
    ).toEqual([]);
  });

  it('names each problem by its path', () => {
    expect(
      validateComposeSchema({
        services: {
          web: { image: 5, restart_policy: 'always', depends_on: { db: { condition: 'service_ready' } }, ports: [true] },
        },
        volumes: { data: { driver_opts: [] } },
        extra: 1,
      }),
    ).toEqual(
      expect.arrayContaining([
        { path: 'extra', message: 'not allowed here by the Compose specification' },
        { path: 'services.web.image', message: 'expected string' },
        { path: 'services.web.restart_policy', message: 'not allowed here by the Compose specification' },
        { path: 'services.web.depends_on.db.condition', message: 'expected one of "service_started", "service_healthy", "service_completed_successfully"' },
      ]),
    );
  });

  it('a oneOf failure reads as the branch the author meant, not every branch', () => {
    const problems = validateComposeSchema({ services: { web: { image: 'x', depends_on: { db: { condition: 'service_started', required: 'yes' } } } } });
    expect(problems).toEqual([{ path: 'services.web.depends_on.db.required', message: 'expected boolean' }]);
  });

  it('turns JSON pointers into dotted paths', () => {
    expect(pointerToPath('/services/web/ports/0')).toBe('services.web.ports.0');
    expect(pointerToPath('/x~1y/a~0b')).toBe('x/y.a~b');
    expect(pointerToPath('')).toBe('');
  });

  it('runs the validator generated from the vendored schema by the installed ajv (stale: run generate-schema-validator.mjs)', () => {
    const committed = readFileSync(new URL('./compose-schema-validator.ts', import.meta.url), 'utf8');
    expect(committed === validatorModule(COMPOSE_SPEC_SCHEMA), 'compose-schema-validator.ts is stale: npm run build, then node src/contracts/compose/generate-schema-validator.mjs').toBe(true);
  });
});
