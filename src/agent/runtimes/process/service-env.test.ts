import { describe, expect, it } from 'vitest';
import type { ServiceSpec } from '../../../contracts/spec.js';
import { serviceEnvironment, volumeEnvName } from './service-env.js';

const spec: ServiceSpec = {
  image: null,
  command: ['app'],
  entrypoint: null,
  environment: { MODE: 'prod', PORT: '1' },
  working_dir: null,
  ports: [],
  volumes: [],
  health: { kind: 'alive', for_ms: 1000 },
};

describe('serviceEnvironment', () => {
  it('inherits only a few variables, then identity, the spec, PORT and DENV_VOLUME_* (which win)', () => {
    const env = serviceEnvironment({ PATH: '/bin', HOME: '/root', SECRET: 'agent-only' }, { env: 'e', version: 'v', service: 's' }, spec, 20001, { 'user-data.v2': '/d/live/user-data.v2' });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/root',
      DENV_ENV: 'e',
      DENV_VERSION: 'v',
      DENV_SERVICE: 's',
      MODE: 'prod',
      PORT: '20001',
      DENV_VOLUME_USER_DATA_V2: '/d/live/user-data.v2',
    });
  });

  it('names volume variables upper-case with other characters as _', () => {
    expect(volumeEnvName('pg-data')).toBe('DENV_VOLUME_PG_DATA');
  });
});
