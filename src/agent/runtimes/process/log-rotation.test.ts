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

  it('moves a file up to twice its cap whole to <file>.1, replacing the last one, and leaves the file empty', async () => {
    const file = path.join(dir, 'plain.log');
    await writeFile(`${file}.1`, 'older rotation\n');
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}\n`).join('');
    await writeFile(file, lines);
    expect(await rotateIfLarge(file, Math.ceil(lines.length / 2))).toBe(true);
    expect(await readFile(`${file}.1`, 'utf8')).toBe(lines);
    expect((await stat(file)).size).toBe(0);
    await appendFile(file, 'after\n');
    expect(await rotateIfLarge(file, 1024)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('after\n');
  });

  it('keeps only the newest cap of a file far past it, from a line start, saying how much was dropped', async () => {
    const file = path.join(dir, 'big.log');
    const lines = Array.from({ length: 30000 }, (_, i) => `line ${i}\n`);
    const all = lines.join('');
    await writeFile(file, all);
    expect(await rotateIfLarge(file, 1024)).toBe(true);
    // The lines that fit whole in the last 1024 bytes.
    let kept = '';
    for (let i = lines.length - 1; kept.length + lines[i]!.length <= 1024; i--) kept = lines[i]! + kept;
    const dropped = all.length - kept.length;
    expect(await readFile(`${file}.1`, 'utf8')).toBe(`[denv: ${dropped} earlier bytes of this log were dropped: it grew past its cap of 1024 bytes between two checks]\n${kept}`);
    expect((await stat(file)).size).toBe(0);
  });

  it('takes the cut itself as the start when it falls on a line start', async () => {
    const file = path.join(dir, 'exact.log');
    await writeFile(file, 'aaaa\nbbbb\ncccc\ndddd\n');
    expect(await rotateIfLarge(file, 5)).toBe(true);
    expect(await readFile(`${file}.1`, 'utf8')).toBe('[denv: 15 earlier bytes of this log were dropped: it grew past its cap of 5 bytes between two checks]\ndddd\n');
  });
});
