import { describe, expect, it } from 'vitest';
import {
  composeDownArgv,
  composeUpArgv,
  composeVersionArgv,
  dockerLogsArgv,
  dockerNetworkCreateArgv,
  dockerNetworkRmArgv,
  dockerPauseArgv,
  dockerPullArgv,
  dockerUnpauseArgv,
  flavorOf,
  type ComposeCli,
} from './docker-argv.js';

const v1: ComposeCli = { argv: ['docker-compose'], flavor: 'v1', version: '1.29.2' };
const v2: ComposeCli = { argv: ['docker', 'compose'], flavor: 'v2', version: '2.27.0' };

describe('docker and compose argv', () => {
  it('builds compose commands for both flavors', () => {
    expect(composeUpArgv(v1, 'denv-p', '/d/compose.yml')).toEqual(['docker-compose', '--project-name', 'denv-p', '--file', '/d/compose.yml', 'up', '--detach', '--remove-orphans']);
    expect(composeUpArgv(v2, 'denv-p', '/d/compose.yml')).toEqual(['docker', 'compose', '--project-name', 'denv-p', '--file', '/d/compose.yml', 'up', '--detach', '--remove-orphans']);
    expect(composeDownArgv(v1, 'denv-p', '/d/c.yml')).toEqual(['docker-compose', '--project-name', 'denv-p', '--file', '/d/c.yml', 'down', '--remove-orphans']);
    expect(composeVersionArgv(v2)).toEqual(['docker', 'compose', 'version', '--short']);
  });

  it('builds docker commands', () => {
    expect(dockerPullArgv('r/app@sha256:1')).toEqual(['docker', 'pull', '--quiet', 'r/app@sha256:1']);
    expect(dockerPauseArgv(['a', 'b'])).toEqual(['docker', 'pause', 'a', 'b']);
    expect(dockerUnpauseArgv(['a'])).toEqual(['docker', 'unpause', 'a']);
    expect(dockerLogsArgv('c1', 20)).toEqual(['docker', 'logs', '--timestamps', '--tail', '20', 'c1']);
    expect(dockerNetworkCreateArgv('denv-env_1', { 'dev.denv.scope': 'env_1', 'dev.denv.agent': 'a1' })).toEqual([
      'docker', 'network', 'create', '--driver', 'bridge', '--label', 'dev.denv.agent=a1', '--label', 'dev.denv.scope=env_1', 'denv-env_1',
    ]);
    expect(dockerNetworkRmArgv('denv-env_1')).toEqual(['docker', 'network', 'rm', 'denv-env_1']);
  });

  it('reads the flavor from `version --short`', () => {
    expect(flavorOf('1.29.2\n')).toBe('v1');
    expect(flavorOf('2.27.0')).toBe('v2');
    expect(flavorOf('v2.3.3')).toBe('v2');
    expect(flavorOf('docker: unknown command')).toBeNull();
  });
});
