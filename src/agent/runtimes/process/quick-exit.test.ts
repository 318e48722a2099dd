import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { ProcessRuntime } from './process-runtime.js';

/**
 * A process that ends while `start` is still settling it in (before its exit listener is attached)
 * is recorded as ended all the same: a one-shot that finished at once is `exited` with its code,
 * never `running` — what a pipeline's markHealthy made of a record still `starting` — until the
 * next supervision pass. The pass is an hour away here, so only the exit itself can record it.
 */
describe('a process that exits while it is being started', () => {
  let dir = '';
  let runtime: ProcessRuntime;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-quick-exit-'));
    runtime = await ProcessRuntime.open({ dataDir: dir, pollMs: 3_600_000 });
  });
  afterAll(async () => {
    await runtime.forgetEnv('env_q');
    runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(Array.from({ length: 20 }, (_, i) => i))('one-shot %i: exited with code 0 once its exit is seen, whatever markHealthy says', async (i) => {
    const spec = parseSpec({ services: { s: { command: ['true'], restart: 'no' } } }).services.s!;
    const id = { env: 'env_q', version: `v${i}`, service: 's' };
    expect((await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir })).ok).toBe(true);
    // What the pipeline's health stage does for a one-shot: wait for its exit, then mark it healthy.
    let exit = await runtime.exitOf(id);
    while (!exit) {
      await new Promise((r) => setTimeout(r, 5));
      exit = await runtime.exitOf(id);
    }
    expect(exit).toMatchObject({ code: 0 });
    await runtime.markHealthy(id);
    expect(runtime.get(id)).toMatchObject({ state: 'exited', exit: { code: 0 } });
  });
});
