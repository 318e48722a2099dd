import { describe, expect, it } from 'vitest';
import { memoryCgroupOf, parseCgroupMounts, parseMemoryCgroupPath } from './memory-cgroup.js';

describe('memory cgroup parsing', () => {
  it('finds v1 memory and v2 mounts in mountinfo', () => {
    const info = [
      '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
      '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
      '29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate',
    ].join('\n');
    expect(parseCgroupMounts(info)).toEqual([
      { version: 1, root: '/', point: '/sys/fs/cgroup/memory' },
      { version: 2, root: '/', point: '/sys/fs/cgroup' },
    ]);
  });

  it('prefers the v1 memory controller, else the v2 line', () => {
    expect(parseMemoryCgroupPath('4:memory:/a/b\n0::/\n')).toEqual({ version: 1, path: '/a/b' });
    expect(parseMemoryCgroupPath('0::/system.slice/x.service\n')).toEqual({ version: 2, path: '/system.slice/x.service' });
    expect(parseMemoryCgroupPath('1:cpu:/\n')).toBeNull();
  });

  it.runIf(process.platform === 'linux')("finds this process's own cgroup when the machine has one", async () => {
    const cg = await memoryCgroupOf('self');
    if (cg) expect(cg.dir).toMatch(/^\/sys\/fs\/cgroup/);
  });
});
