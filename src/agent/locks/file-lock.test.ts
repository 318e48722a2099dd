/**
 * The per-service lock is a kernel flock: another process sees it held, and it is released when
 * its holder dies (SIGKILL included). Uses the compiled module in a child process (npm test
 * builds first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../lib/exec.js';
import { FileLocks, acquireFileLock } from './file-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DIST_LOCK = fileURLToPath(new URL('../../../dist/agent/locks/file-lock.js', import.meta.url));

/** `flock --nonblock` from another process: 0 when the lock is free, 1 when held. */
const probe = async (file: string) => (await run(['flock', '--nonblock', file, 'true'])).exitCode;

describe('file locks', () => {
  it('is seen held by another process until released', async () => {
    const file = join(dir, 'a.lock');
    const release = await acquireFileLock(file);
    expect(await probe(file)).toBe(1);
    await release();
    expect(await probe(file)).toBe(0);
  });

  it('serialises runs of one key and lets different keys run together', async () => {
    const locks = new FileLocks(join(dir, 'locks'));
    const events: string[] = [];
    // `a` holds key k until `c` (another key) has got in: no time window, so no machine is too slow.
    let cIn!: () => void;
    const cEntered = new Promise<void>((r) => (cIn = r));
    const job = (key: string, name: string, hold: () => Promise<void> = async () => {}) =>
      locks.run(key, async () => {
        events.push(`${name}+`);
        if (name === 'c') cIn();
        await hold();
        events.push(`${name}-`);
      });
    const cWithin = () => Promise.race([cEntered, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('c never ran while a held k')), 30_000))]);
    await Promise.all([job('k', 'a', cWithin), job('k', 'b'), job('other', 'c')]);
    expect(events.indexOf('a-')).toBeLessThan(events.indexOf('b+'));
    expect(events.indexOf('c+')).toBeLessThan(events.indexOf('a-'));
  });

  it('is released by the kernel when its holder is killed', async () => {
    const file = join(dir, 'b.lock');
    const child = spawn(process.execPath, ['-e', `import(${JSON.stringify(DIST_LOCK)}).then(async (m) => { await m.acquireFileLock(${JSON.stringify(file)}); console.log('held'); setInterval(() => {}, 1000); })`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
    expect(await probe(file)).toBe(1);
    const waiting = acquireFileLock(file, { waitMs: 10_000 });
    child.kill('SIGKILL');
    const started = Date.now();
    const release = await waiting;
    expect(Date.now() - started).toBeLessThan(5000);
    await release();
  });

  it('gives up with TIMEOUT after waitMs', async () => {
    const file = join(dir, 'c.lock');
    const release = await acquireFileLock(file);
    await expect(acquireFileLock(file, { waitMs: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    await release();
  });
});
