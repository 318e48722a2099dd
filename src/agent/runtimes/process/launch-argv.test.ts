import { describe, expect, it } from 'vitest';
import { contextArgv, launchArgv } from './launch-argv.js';
import { limitFiles } from './limit-files.js';

describe('launchArgv', () => {
  it('wraps the service in a PID namespace and its user, as argv', () => {
    expect(launchArgv({ argv: ['postgres', '-D', '/d'], identity: { uid: 105, gid: 110, name: 'postgres' }, pidNamespace: true })).toEqual([
      'unshare', '--pid', '--fork', '--mount-proc', '--',
      'setpriv', '--reuid=105', '--regid=110', '--clear-groups', '--no-new-privs', '--',
      'postgres', '-D', '/d',
    ]);
    expect(launchArgv({ argv: ['node', 'a.js'], identity: { uid: 61184, gid: 61184, name: null }, pidNamespace: false })).toEqual([
      'setpriv', '--reuid=61184', '--regid=61184', '--clear-groups', '--no-new-privs', '--', 'node', 'a.js',
    ]);
    expect(launchArgv({ argv: ['node', 'a.js'], identity: null, pidNamespace: false })).toEqual(['node', 'a.js']);
    expect(contextArgv(['pg_isready'], { uid: 1, gid: 2, name: null })).toEqual(['setpriv', '--reuid=1', '--regid=2', '--clear-groups', '--no-new-privs', '--', 'pg_isready']);
  });
});

describe('limitFiles', () => {
  it('writes each limit to its cgroup v1 or v2 file', () => {
    const limits = { memory_bytes: 96 * 1024 * 1024, cpus: 0.5, pids: 64 };
    expect(limitFiles(limits, 1)).toEqual({
      memory: { 'memory.limit_in_bytes': '100663296', 'memory.memsw.limit_in_bytes': '100663296' },
      cpu: { 'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': '50000' },
      pids: { 'pids.max': '64' },
    });
    expect(limitFiles(limits, 2)).toEqual({ memory: { 'memory.max': '100663296', 'memory.swap.max': '0' }, cpu: { 'cpu.max': '50000 100000' }, pids: { 'pids.max': '64' } });
    expect(limitFiles({ memory_bytes: null, cpus: null, pids: null }, 1)).toEqual({});
  });
});
