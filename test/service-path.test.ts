/**
 * A service running as a user of its own gets the agent's PATH without the directories that user
 * cannot search (agent/identity/usable-path.ts), with a real agent run by root the way this
 * machine's root runs things: its PATH starts with a directory under a 0700 home (pyenv's shims,
 * `/root/.pyenv/shims`) holding programs of the same names as the system's. A healthcheck
 * `["CMD", "true"]` found the private `true` first and failed `Permission denied` (exit 126) as
 * the service's user; now it runs /usr/bin/true, and the service's own PATH has no such entry.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentServicePids, startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

describe('a service’s PATH', () => {
  const home = join(freshDataDir('denv-service-path-'), 'home');
  const shims = join(home, 'shims');
  let h: Harness;
  beforeAll(async () => {
    mkdirSync(shims, { recursive: true });
    chmodSync(home, 0o700);
    chmodSync(shims, 0o755);
    // Were it run, it would fail the healthcheck too: passing proves the system's `true` ran.
    writeFileSync(join(shims, 'true'), '#!/bin/sh\nexit 7\n', { mode: 0o755 });
    h = await startHarness({ agentEnv: { PATH: `${shims}:${process.env.PATH}` } });
    expect((await h.api.post('/v1/projects', { name: 'paths' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('leaves out what the service’s user cannot search, so its healthcheck finds the system’s program', async () => {
    const res = await h.api.post('/v1/projects/paths/deploy', {
      env: 'shadowed',
      compose: { services: { web: { command: ['node', APP], healthcheck: { test: ['CMD', 'true'], interval: '200ms', retries: 2 } } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');

    const [pid] = agentServicePids(h.agentDir);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const servicePath = environ.find((v) => v.startsWith('PATH='))!.slice('PATH='.length).split(':');
    expect(servicePath).not.toContain(shims);
    expect(servicePath).toContain('/usr/bin');
  }, 60_000);
});
