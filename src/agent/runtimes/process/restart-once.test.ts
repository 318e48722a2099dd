import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { ProcessRuntime } from './process-runtime.js';

/**
 * A died service is restarted once. Supervision polls every millisecond here, so it runs many
 * times while the restart is being spawned — when the service's record still names the dead
 * process. Counting that as a second death started a second copy: the first ran on, untracked,
 * never stopped by a later deploy (seen with PostgreSQL and an HTTP app after an agent restart:
 * the tracked copy crash-looped on the port or shared memory the untracked one held).
 */
describe('restart after a death', () => {
  let dir = '';
  let runtime: ProcessRuntime;
  const logs: string[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-restart-once-'));
    runtime = await ProcessRuntime.open({ dataDir: dir, pollMs: 1, log: (line) => void logs.push(line) });
  });
  afterAll(async () => {
    await runtime.forgetEnv('env_once');
    runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('spawns one new process, and supervision meanwhile sees no second death', async () => {
    const spec = parseSpec({ services: { s: { command: ['node', '-e', 'setInterval(() => {}, 1000)'] } } }).services.s!;
    const id = { env: 'env_once', version: 'v1', service: 's' };
    const started = await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir });
    if (!started.ok) throw new Error(started.message);
    await runtime.markHealthy(id);
    process.kill(started.pid, 'SIGKILL');

    const deadline = Date.now() + 20_000;
    while (runtime.get(id)!.restarts === 0) {
      if (Date.now() > deadline) throw new Error(`no restart: ${logs.join('\n')}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    // By the time the restart is recorded, one death was seen — not a second one during its spawn.
    expect(logs.filter((l) => l.includes('died'))).toEqual([expect.stringMatching(/^env_once\/v1\/s died \(SIGKILL\); restarting in \d+ ms$/)]);
    expect(runtime.get(id)).toMatchObject({ state: 'running', restarts: 1 });
    expect(runtime.get(id)!.pid).not.toBe(started.pid);
  });
});
