/** Every phase is bounded by the command timeout (15 min by default; shortened here). */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

describe('phase timeout', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ cp: { commandTimeoutMs: 1500 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fails a phase that outlives the command timeout, skips the rest, and still runs verdict', async () => {
    await h.api.post('/v1/projects', { name: 'slow' });
    const compose = { services: { web: { command: ['node', APP], environment: { STARTUP_DELAY_MS: '8000' }, 'x-denv': { health: { path: '/healthz', timeout: '10s' } } } } };
    const res = await h.api.post('/v1/projects/slow/deploy', { compose });
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status).toBe('failed');
    expect(dep.error).toBe('prepare: timed out after 1500 ms');
    const prepare = dep.phases.find((p) => p.name === 'prepare')!;
    expect(prepare.status).toBe('failed');
    expect(Date.parse(prepare.finished_at!) - Date.parse(prepare.started_at!)).toBeGreaterThanOrEqual(1400);
    expect(dep.phases.slice(5, -1).every((p) => p.status === 'skipped')).toBe(true);
    expect(dep.phases.at(-1)).toMatchObject({ name: 'verdict', status: 'ok', evidence: { reverted: 'no previous version' } });
  });
});
