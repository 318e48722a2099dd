import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { ProcessRuntime } from './process-runtime.js';

/** Compose `restart`: `no` leaves a service that died after it was healthy down; the default restarts it. */
describe('restart policies', () => {
  let dir = '';
  let runtime: ProcessRuntime;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-restart-'));
    runtime = await ProcessRuntime.open({ dataDir: dir, pollMs: 20 });
  });
  afterAll(async () => {
    await runtime.forgetEnv('env_r');
    runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it.each([
    ['no', 'exited', 0],
    [undefined, 'running', 1],
  ] as const)('restart %s: a healthy service killed ends %s with %i restarts', async (policy, state, restarts) => {
    const spec = parseSpec({ services: { s: { command: ['node', '-e', 'setInterval(() => {}, 1000)'], ...(policy ? { restart: policy } : {}) } } }).services.s!;
    const id = { env: 'env_r', version: `v-${policy ?? 'default'}`, service: 's' };
    const started = await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir });
    expect(started.ok).toBe(true);
    await runtime.markHealthy(id);
    process.kill(runtime.get(id)!.pid!, 'SIGKILL');
    await until(() => runtime.get(id)!.state === state && runtime.get(id)!.restarts === restarts && (state === 'exited' || runtime.get(id)!.pid !== (started.ok ? started.pid : 0)));
    expect(runtime.get(id)).toMatchObject({ state, restarts });
  });
});
