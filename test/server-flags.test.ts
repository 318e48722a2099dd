/**
 * `denv server --heartbeat --degraded-after --disconnected-after` (issue 11, item 6): operators
 * and tests set the heartbeat timings of a real server process. A real agent is frozen (SIGSTOP):
 * its host turns degraded, then disconnected, at the times given, and connected again once it
 * runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Api, waitFor } from './helpers/api.js';
import { spawnDenv, startAgentProcess, type Child } from './helpers/processes.js';
import { freshDataDir, seedPGlite } from './helpers/stores.js';
import { freePort } from './helpers/free-port.js';

describe('denv server heartbeat flags', () => {
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) {
      c.proc.kill('SIGCONT');
      await c.kill('SIGKILL');
    }
  });

  it('marks a silent host degraded and then disconnected at the times given on the command line', async () => {
    const dataDir = freshDataDir();
    const cpDir = join(dataDir, 'cp');
    seedPGlite(cpDir);
    const port = await freePort();
    const server = spawnDenv(['server', '--port', String(port), '--data-dir', cpDir, '--heartbeat', '200', '--degraded-after', '1000', '--disconnected-after', '2500']);
    children.push(server);
    await server.waitForOutput(/127\.0\.0\.1/);
    const api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());
    const agent = startAgentProcess({ control: api.url, enrollmentKey: (await api.post('/v1/enrollment-keys', {})).body.key, dataDir: join(dataDir, 'agent') });
    children.push(agent);
    const status = async () => ((await api.get('/v1/hosts')).body.items[0] as { status: string } | undefined)?.status;
    await waitFor(async () => (await status()) === 'connected', 30_000, 'the agent to connect');

    agent.proc.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await waitFor(async () => (await status()) === 'degraded', 10_000, 'degraded');
    const degradedIn = Date.now() - stoppedAt;
    await waitFor(async () => (await status()) === 'disconnected', 10_000, 'disconnected');
    const disconnectedIn = Date.now() - stoppedAt;
    // The defaults are 2 min and 10 min: only the flags make these seconds.
    expect(degradedIn).toBeLessThan(10_000);
    expect(disconnectedIn).toBeGreaterThan(degradedIn);
    agent.proc.kill('SIGCONT');
    await waitFor(async () => (await status()) === 'connected', 30_000, 'connected again');
  });
});
