import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryCgroupOf, memoryUsage, parseCgroupMounts, parseMemoryCgroupPath } from './memory-cgroup.js';

/** Read without the module's code: the memory cgroup version this process is in (v1 memory controller, else v2 with memory enabled), or null. */
function machineMemoryCgroup(): 1 | 2 | null {
  const own = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8') : '';
  if (/^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:/m.test(own) && existsSync('/sys/fs/cgroup/memory/memory.usage_in_bytes')) return 1;
  if (/^0::/m.test(own) && existsSync('/sys/fs/cgroup/cgroup.controllers') && readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('memory')) return 2;
  return null;
}

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

  it.runIf(process.platform === 'linux')("finds this process's own memory cgroup exactly when the machine has one", async () => {
    const cg = await memoryCgroupOf('self');
    const expected = machineMemoryCgroup();
    expect(cg).toEqual(expected === null ? null : { version: expected, dir: expect.stringMatching(/^\/sys\/fs\/cgroup\//) });
  });

  it.runIf(process.platform === 'linux' && machineMemoryCgroup() !== null)("the cgroup found is charged with this process's memory", async () => {
    const cg = await memoryCgroupOf('self');
    expect(cg).not.toBeNull();
    expect(await memoryUsage(cg!)).toBeGreaterThan(process.memoryUsage().rss / 2);
  });
});
