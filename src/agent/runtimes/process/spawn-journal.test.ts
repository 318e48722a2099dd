import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { ProcessRuntime } from './process-runtime.js';
import { SpawnJournal } from './spawn-journal.js';

/** A process that exists only in /proc, as one spawned by an agent killed before it recorded it. */
function orphan(env: Record<string, string>) {
  const child = spawn('node', ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
  child.unref();
  return child;
}

describe('the spawn journal', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('a runtime opening after a cut-short spawn kills the unrecorded copy and keeps the recorded one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'denv-journal-'));
    dirs.push(dir);
    const first = await ProcessRuntime.open({ dataDir: dir, pollMs: 50 });
    const spec = parseSpec({ services: { s: { command: ['node', '-e', 'setInterval(() => {}, 1000)'] } } }).services.s!;
    const id = { env: 'env_j', version: 'v1', service: 's' };
    const started = await first.start({ ...id, spec, port: 1, datasets: {}, cwd: dir });
    expect(started.ok).toBe(true);
    first.close();
    // The next start of the same service was journaled, spawned, and never recorded: the agent died.
    await new SpawnJournal(dir).add(id);
    const stray = orphan({ DENV_ENV: id.env, DENV_VERSION: id.version, DENV_SERVICE: id.service });
    const gone = new Promise<NodeJS.Signals | null>((resolve) => stray.once('exit', (_code, signal) => resolve(signal)));
    const other = orphan({ DENV_ENV: id.env, DENV_VERSION: 'v2', DENV_SERVICE: id.service }); // not journaled: not ours to judge
    try {
      const second = await ProcessRuntime.open({ dataDir: dir, pollMs: 50 });
      expect(await gone).toBe('SIGKILL');
      expect(await second.isAlive(id)).toBe(true); // the recorded copy is adopted, untouched
      expect(() => process.kill(other.pid!, 0)).not.toThrow();
      expect(await new SpawnJournal(dir).takeInterrupted()).toEqual([]);
      await second.forgetEnv('env_j');
      second.close();
    } finally {
      other.kill('SIGKILL');
    }
  });
});
