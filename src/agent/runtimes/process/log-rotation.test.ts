import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { ProcessRuntime } from './process-runtime.js';
import { serviceLogPath } from './service-env.js';

/** Prints 4 MiB in 100-byte lines over about a second, then says "done" and idles. */
const FLOOD = `
let n = 0;
const line = 'x'.repeat(99) + '\\n';
const t = setInterval(() => {
  for (let i = 0; i < 400; i++) process.stdout.write(line);
  if ((n += 400) >= 40000) { clearInterval(t); console.log('done'); setInterval(() => {}, 1000); }
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
    const spec = parseSpec({ services: { flood: { command: ['node', '-e', FLOOD] } } }).services.flood!;
    const id = { env: 'env_l', version: 'v1', service: 'flood' };
    expect(await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir })).toMatchObject({ ok: true });
    const log = serviceLogPath(dir, id);
    // Until the flood is over: its last line is in the current file or the rotated one.
    for (;;) {
      const both = (await readFile(log, 'utf8').catch(() => '')) + (await readFile(`${log}.1`, 'utf8').catch(() => ''));
      if (both.includes('done')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const [current, rotated] = await Promise.all([stat(log), stat(`${log}.1`)]);
    // 4 MiB written; on disk at most the cap plus what one poll lets through, twice.
    expect(current.size + rotated.size).toBeLessThan(1024 * 1024);
    expect(rotated.size).toBeGreaterThan(64 * 1024);
  });
});
