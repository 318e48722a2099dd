import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../contracts/spec.js';
import { payloadPid } from './payload-pid.js';
import { ProcessRuntime } from './process-runtime.js';

/**
 * A service in a PID namespace of its own is that namespace's init, for which the kernel ignores a
 * signal's default action. Node catches SIGTERM, resets the terminal and re-raises it by default
 * action — into the void: it stayed up for its whole grace period on every stop. Stopped now as
 * soon as it has given its handler up; a service that keeps its handler (shuts down by itself)
 * still gets its grace. Needs root (unshare --pid).
 */
describe('stopping the init of a PID namespace', () => {
  let dir = '';
  let runtime: ProcessRuntime;
  beforeAll(async () => {
    expect(process.getuid?.(), 'unshare --pid needs root').toBe(0);
    dir = await mkdtemp(path.join(os.tmpdir(), 'denv-nsinit-'));
    runtime = await ProcessRuntime.open({ dataDir: dir, pollMs: 20 });
  });
  afterAll(async () => {
    await runtime.forgetEnv('env_n');
    runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  const GRACE_MS = 60_000;
  const until = async (check: () => Promise<boolean>) => {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** Start `script` (which writes the file named by its first argument once it is set up), wait for that, stop it. */
  async function startAndStop(version: string, script: string): Promise<{ ms: number; payload: number }> {
    const ready = path.join(dir, `${version}.ready`);
    const spec = parseSpec({ services: { s: { command: ['node', '-e', `${script}; require('fs').writeFileSync(process.argv[1], '')`, ready], stop_grace_period: `${GRACE_MS / 1000}s` } } }).services.s!;
    const id = { env: 'env_n', version, service: 's' };
    const started = await runtime.start({ ...id, spec, port: 1, datasets: {}, cwd: dir, pidNamespace: true });
    expect(started.ok).toBe(true);
    await runtime.markHealthy(id);
    await until(() => access(ready).then(() => true, () => false));
    const payload = (await payloadPid(runtime.get(id)!.pid!))!;
    // It is the namespace's init (NSpid ends in 1), with its SIGTERM handler in place.
    expect((await readFile(`/proc/${payload}/status`, 'utf8')).match(/^NSpid:.*\s(\d+)$/m)![1]).toBe('1');
    const t0 = Date.now();
    expect(await runtime.stop(id)).toBe(true);
    return { ms: Date.now() - t0, payload };
  }

  it('stops a Node service (which re-raises SIGTERM) at once instead of after its grace period', async () => {
    const { ms } = await startAndStop('v1', 'setInterval(() => {}, 1000)');
    expect(ms).toBeLessThan(GRACE_MS / 2);
  });

  it('still lets a service that handles SIGTERM itself shut down in its own time', async () => {
    // Keeps its handler, takes ~300 ms to "flush", then exits 0: never killed.
    const { ms } = await startAndStop('v2', "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 300)); setInterval(() => {}, 1000)");
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(runtime.get({ env: 'env_n', version: 'v2', service: 's' })).toBeNull();
  });
});
