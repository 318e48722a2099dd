/**
 * Issue 10, item 7: a host an operator removed must not come back. The review saw a removed host
 * re-enroll within a second with its multi-use key. Here the victim agent (a real process, its key
 * in DENV_ENROLLMENT_KEY, not on its command line) is removed: it is told HOST_REMOVED and stops;
 * started again with the same data dir and the same still-valid key, it exits at once with that
 * error instead of enrolling a new host.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/api.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startAgentProcess, type Child } from '../helpers/processes.js';
import { freshDataDir } from '../helpers/stores.js';

describe('a removed host', () => {
  let h: Harness;
  const children: Child[] = [];
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    for (const c of children) await c.kill('SIGKILL');
    await h?.close();
  });

  it('stops instead of re-enrolling with its (multi-use) enrollment key', async () => {
    const key = (await h.api.post('/v1/enrollment-keys', { single_use: false })).body.key;
    const dir = join(freshDataDir(), 'victim');
    const victim = startAgentProcess({ control: h.cp.url, dataDir: dir, name: 'victim', env: { DENV_ENROLLMENT_KEY: key } });
    children.push(victim);
    const id = await waitFor(async () => (await h.api.get('/v1/hosts')).body.items.find((x: { name: string; status: string }) => x.name === 'victim' && x.status === 'connected')?.id, 30_000, 'victim to connect');
    expect(victim.proc.spawnargs.join(' ')).not.toContain(key); // the key is not visible in ps

    expect((await h.api.req('DELETE', `/v1/hosts/${id}`)).status).toBe(200);
    await victim.waitForOutput(/refused \(HOST_REMOVED\)/, 15_000);
    await victim.waitForOutput(/stops connecting/, 5_000);

    // Started again on the same data dir with the same valid key: refused, and the command ends.
    await victim.kill('SIGTERM');
    const again = startAgentProcess({ control: h.cp.url, dataDir: dir, name: 'victim', env: { DENV_ENROLLMENT_KEY: key } });
    children.push(again);
    const code = await new Promise<number | null>((resolve) => again.proc.once('exit', (c) => resolve(c)));
    expect(again.output()).toMatch(/removed by an operator/);
    expect(code).not.toBe(0);

    const victims = (await h.api.get('/v1/hosts')).body.items.filter((x: { name: string }) => x.name === 'victim');
    expect(victims.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([[id, 'removed']]);
  });
});
