/**
 * The env lifecycle (seed 002) on a host, table-driven: for every (status, action) pair, an env is
 * brought to that status with a real agent doing the work; an allowed action reaches the status the
 * table says (and its outcome), a refused one answers 409 naming the status and changes nothing.
 * The rows are test/helpers/lifecycle-table.ts's (shared with the other targets); this file says
 * how a host reaches each status.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvStatus } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { heldPlanner } from './helpers/held-planner.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { lifecycleReach } from './helpers/lifecycle-reach.js';
import { lifecycleApi, lifecycleTable, reachedByActions } from './helpers/lifecycle-table.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const compose = (env: Record<string, string> = {}) => ({
  services: { web: { command: ['node', APP], environment: env, 'x-denv': { health: { path: '/healthz', timeout: '20s' } } } },
});
/** Starts that hold until the test opens their gate (START_WHEN_FILE): a transient status
 *  (deploying, upgrading, stopping, tearing_down) lasts however slow the machine is. */
const GATES = mkdtempSync(path.join(tmpdir(), 'denv-lifecycle-gates-'));
chmodSync(GATES, 0o755); // services run as an unprivileged user of their own: they must see the gate
let gates = 0;
const newGate = () => path.join(GATES, `gate-${++gates}`);

describe('env lifecycle: every (status, action) pair', () => {
  let h: Harness;
  const planner = heldPlanner();
  beforeAll(async () => {
    h = await startHarness({ cp: { planner, liveStatusMs: 300 } });
    expect((await h.api.post('/v1/projects', { name: 'auto' })).status).toBe(201);
    expect((await h.api.post('/v1/projects', { name: 'req', approval: 'required' })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    planner.release();
    await h?.close();
  });

  const { env, statusIs, act } = lifecycleApi(() => h.api);
  const { next, deploy, planning, reach, openGate } = lifecycleReach({
    api: () => h.api,
    compose: () => compose(),
    held() {
      const gate = newGate();
      return { compose: compose({ START_WHEN_FILE: gate }), open: () => writeFileSync(gate, '') };
    },
    heldIn: 'prepare',
  });

  /** A fresh env in `status`. Transient statuses are caught while a gated app waits to start. */
  const REACH: Record<EnvStatus, () => Promise<string>> = {
    ...reach,
    planning: () => planning('auto', `hold-${next()}`, planner.holding),
    degraded: async () => {
      const id = await reach.running();
      await fetch(new URL('/sick', (await env(id)).endpoints[0]!.url), { method: 'POST' });
      await statusIs(id, 'degraded');
      return id;
    },
    failed: async () => {
      const id = await deploy('auto', `e${next()}`, compose({ MODE: 'crash' }));
      await statusIs(id, 'failed');
      return id;
    },
    ...reachedByActions(() => h.api, { running: reach.running, deploying: reach.deploying }),
  };

  lifecycleTable({ api: () => h.api, reach: REACH, openGate });

  it('a plan that lands after the env was torn down changes nothing: the env stays torn down, its deploy never runs', async () => {
    const name = `hold-${next()}`;
    const id = await deploy('auto', name);
    await planner.holding(name);
    expect((await act(id, 'teardown')).status).toBe(202);
    await statusIs(id, 'torn_down');
    planner.releaseEnv(name);
    // The planner records that it dropped the plan; the env is as the teardown left it.
    const types = await waitFor(async () => {
      const t = (await h.api.get(`/v1/events?subject=env:${id}&limit=1000`)).body.items.map((e: { type: string }) => e.type) as string[];
      return t.includes('plan_dropped') ? t : undefined;
    }, 30_000, 'the planner to drop the plan');
    expect(types).not.toContain('plan_ready');
    expect((await env(id)).status).toBe('torn_down');
    const deploys = (await h.api.get(`/v1/deployments?env=${id}`)).body.items.filter((d: { kind: string }) => d.kind === 'deploy');
    expect(deploys.map((d: { status: string; error: string }) => [d.status, d.error])).toEqual([['failed', 'verdict: not applied: superseded by teardown']]);
  });

  it('a planner that keeps failing sets failed with "use Re-plan to retry"; the deploy never reaches the host', async () => {
    const res = await h.api.post('/v1/projects/auto/deploy', { env: `fail-${next()}`, compose: compose() });
    const id = res.body.env.id as string;
    await statusIs(id, 'failed');
    const e = await env(id);
    expect(e.last_error).toBe('planning failed: the model answered nonsense; use Re-plan to retry');
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status).toBe('failed');
    expect(dep.phases.filter((p) => p.status !== 'skipped').map((p) => p.name)).toEqual(['verdict']);
    expect(dep.phases.at(-1)!.evidence).toEqual({ plan_failed: 'the model answered nonsense' });
  });
});
