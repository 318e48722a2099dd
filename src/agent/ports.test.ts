import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PortRegistry, lowestFreePort } from './ports.js';

// A range of its own, so parallel test files never compete for the same ports.
const RANGE = { min: 21000, max: 21999 };

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'denv-ports-'));
  dirs.push(dir);
  return dir;
}

describe('lowestFreePort', () => {
  it('skips taken and unusable ports', async () => {
    const port = await lowestFreePort({ min: 10, max: 20 }, new Set([10, 11]), async (p) => p !== 12);
    expect(port).toBe(13);
    expect(await lowestFreePort({ min: 10, max: 11 }, new Set([10, 11]), async () => true)).toBeNull();
  });
});

describe('PortRegistry', () => {
  it('gives 100 concurrent allocations from two instances on one file distinct ports', async () => {
    const dir = await tempDir();
    const a = new PortRegistry(dir, RANGE);
    const b = new PortRegistry(dir, RANGE);
    const ports = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).allocate(`env/v1/svc${i}`)));
    expect(new Set(ports).size).toBe(100);
    const table = JSON.parse(await readFile(path.join(dir, 'ports.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(table)).toHaveLength(100);
    expect(Object.values(table).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `env/v1/svc${i}`).sort());
  });

  it('is idempotent per owner, reuses released ports and skips ports already bound', async () => {
    const dir = await tempDir();
    const reg = new PortRegistry(dir, { min: 22000, max: 22099 });
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(22000, '127.0.0.1', () => r()));
    try {
      const first = await reg.allocate('e/v/web');
      expect(first).toBe(22001);
      expect(await reg.allocate('e/v/web')).toBe(first);
      expect(await reg.allocate('e/v/api')).toBe(22002);
      expect(await reg.release('e/v/web')).toBe(1);
      expect(await reg.allocate('e2/v/web')).toBe(22001);
      expect(await reg.releaseWhere((o) => o.startsWith('e2/'))).toBe(1);
      expect(await reg.read()).toEqual({ '22002': 'e/v/api' });
    } finally {
      blocker.close();
    }
  });

  it('breaks a lock left by a dead process', async () => {
    const dir = await tempDir();
    // 2^22 + 1 is above the largest pid_max Linux allows, so no process holds that pid.
    await writeFile(path.join(dir, 'ports.json.lock'), '4194305 deadbeef');
    const reg = new PortRegistry(dir, { min: 22100, max: 22199 });
    expect(await reg.allocate('e/v/web')).toBe(22100);
  });
});
