import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { rotateIfLarge } from './log-rotation.js';
import { ProcessRuntime } from './process-runtime.js';
import { serviceLogPath } from './service-env.js';

/**
 * Prints 4 MiB in 100-byte lines over about a second, then creates the file `$DONE` and idles.
 * The end is signalled outside the log: a line written during a rotation's truncation may be lost
 * (log-rotation.ts), so waiting for a last line could wait forever.
 */
const FLOOD = `
let n = 0;
const line = 'x'.repeat(99) + '\\n';
const t = setInterval(() => {
  for (let i = 0; i < 400; i++) process.stdout.write(line);
  if ((n += 400) >= 40000) { clearInterval(t); require('node:fs').writeFileSync(process.env.DONE, ''); setInterval(() => {}, 1000); }
}, 10);
`;

describe('service log rotation', () => {
  let dir = '';
  let runtime: ProcessRuntime;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-logs-'));
    runtime = await ProcessRuntime.open({ dataDir: dir, pollMs: 20, logMaxBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await runtime.forgetEnv('env_l');
    runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps a flooding service to its cap and one rotated file', async () => {
    const done = path.join(dir, 'flood-done');
    const spec = parseSpec({ services: { flood: { command: ['node', '-e', FLOOD], environment: { DONE: done } } } }).services.flood!;
    const id = { env: 'env_l', version: 'v1', service: 'flood' };
    expect(await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir })).toMatchObject({ ok: true });
    const log = serviceLogPath(dir, id);
    // Until the flood is over (4 MiB against a 64 KiB cap: it has rotated many times by then).
    while (!(await stat(done).catch(() => null))) await new Promise((r) => setTimeout(r, 20));
    const [current, rotated] = await Promise.all([stat(log), stat(`${log}.1`)]);
    // 4 MiB written; on disk at most the cap plus what one poll lets through, twice.
    expect(current.size + rotated.size).toBeLessThan(1024 * 1024);
    expect(rotated.size).toBeGreaterThan(64 * 1024);
  });

  it('moves every byte of the file to <file>.1, replacing the last one, and leaves the file empty', async () => {
    const file = path.join(dir, 'plain.log');
    await writeFile(`${file}.1`, 'older rotation\n');
    const lines = Array.from({ length: 30000 }, (_, i) => `line ${i}\n`).join('');
    await writeFile(file, lines);
    expect(await rotateIfLarge(file, 1024)).toBe(true);
    expect(await readFile(`${file}.1`, 'utf8')).toBe(lines);
    expect((await stat(file)).size).toBe(0);
    await appendFile(file, 'after\n');
    expect(await rotateIfLarge(file, 1024)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('after\n');
  });
});
