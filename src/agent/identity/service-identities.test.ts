import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../contracts/spec.js';
import { ServiceIdentities } from './service-identities.js';

const web = parseSpec({ services: { web: { command: 'node a.js' } } }).services.web!;

describe('ServiceIdentities', () => {
  it('refuses process services where the host turned the process runtime off', async () => {
    const ids = new ServiceIdentities('/tmp/denv-agent-x', { processRuntime: 'disabled', runAsRoot: false, allowPaths: [] }, false);
    await expect(ids.forService('env_a', 'web', web)).rejects.toThrow('service web: process services are disabled on this host (agent config process_runtime: disabled)');
  });

  it('allows working dirs under the configured paths only, at path boundaries', () => {
    const ids = new ServiceIdentities('/tmp/denv-agent-x', { processRuntime: 'enabled', runAsRoot: false, allowPaths: ['/srv/apps'] }, false);
    expect([ids.allowsPath('/srv/apps'), ids.allowsPath('/srv/apps/web'), ids.allowsPath('/srv/appsx'), ids.allowsPath('/')]).toEqual([true, true, false, false]);
  });
});
