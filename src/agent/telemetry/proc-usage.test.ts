import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuPercent, pageSizeBytes, parseStatFields, readGroupUsage } from './proc-usage.js';

describe('parseStatFields', () => {
  it('reads pgrp, utime+stime and rss, whatever the comm holds', () => {
    const text = '4242 (we ird) (name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 12345 1000000 2560 18446744073709551615';
    expect(parseStatFields(text)).toEqual({ pid: 4242, pgrp: 4242, ticks: 300, rssPages: 2560 });
    expect(parseStatFields('garbage')).toBeNull();
  });
});

describe('cpuPercent', () => {
  it('is the share of one core over the interval', () => {
    expect(cpuPercent(100, 150, 1000)).toBe(50);
    expect(cpuPercent(0, 200, 1000)).toBe(200);
    expect(cpuPercent(10, 5, 1000)).toBeNull();
  });
});

describe('readGroupUsage', () => {
  it.runIf(process.platform === 'linux')('sums a real process group', async () => {
    // It says when its 32 MiB are allocated (and touched); then it idles until killed.
    const child = spawn(process.execPath, ['-e', 'const a = Buffer.alloc(32 << 20, 1); console.log("ready"); setInterval(() => a[0]++, 1000)'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', () => reject(new Error('the child exited before it was ready')));
      });
      const usage = await readGroupUsage(new Set([child.pid!]));
      const g = usage.get(child.pid!)!;
      expect(g.processes).toBeGreaterThanOrEqual(1);
      expect(g.rssPages * (await pageSizeBytes())).toBeGreaterThan(32 << 20);
      expect(g.cpuTicks).toBeGreaterThan(0);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
