/**
 * The verdicts of destroy, separate, stop, start, snapshot, fork and rollback, each on success and
 * on failure: the evidence and outcome they return and what they write to the env's record. The
 * store is real (embedded); the context is the engine's as a phase sees it, with the deployment,
 * state and failure each test sets. No host is involved: each env here has none placed, so no
 * verdict puts anything on the edge (test/env-operations.test.ts and test/env-data.test.ts run
 * these kinds end to end with real agents).
 */
import { describe, expect, it } from 'vitest';
import type { EnvCreateResult } from '../../contracts/protocol.js';
import type { DeploymentRow, EnvRow } from '../store/rows.js';
import type { PhaseContext, PhaseDef } from './phase.js';
import { verdict as destroyVerdict } from './destroy/verdict.js';
import { verdict as forkVerdict } from './fork/verdict.js';
import { verdict as rollbackVerdict } from './rollback/verdict.js';
import { separateVerdict } from './separate/verdict.js';
import { verdict as snapshotVerdict } from './snapshot/verdict.js';
import { startVerdict } from './start/verdict.js';
import { stopVerdict } from './stop/verdict.js';
import { embeddedProjectStore } from '../../../test/helpers/stores.js';

const store = embeddedProjectStore('team_k', 'prj_k', 'shop');
let n = 0;

const ENDPOINTS = [{ service: 'web', url: 'http://127.0.0.1:20001' }];

/** An env with versions 1 (current, healthy) and 2 (not healthy), serving on a stale endpoint with a last error. */
async function env(): Promise<{ id: string; v1: string; v2: string }> {
  const id = `env_k${++n}`;
  const [v1, v2] = [`ver_k${n}a`, `ver_k${n}b`];
  await store.db.query(
    `insert into envs (id, team, project, name, stage, status, endpoints, last_error) values ($1, 'team_k', 'prj_k', $2, 'preview', 'running', '[{"service":"web","url":"http://127.0.0.1:1"}]', 'earlier trouble')`,
    [id, `k${n}`],
  );
  await store.db.query("insert into versions (id, env, number, spec, healthy) values ($1, $3, 1, '{\"services\":{}}', true), ($2, $3, 2, '{\"services\":{}}', false)", [v1, v2, id]);
  await store.db.query('update envs set current_version = $2 where id = $1', [id, v1]);
  return { id, v1, v2 };
}
const row = async (id: string) =>
  (await store.db.query<Pick<EnvRow, 'current_version' | 'endpoints' | 'last_error'>>('select current_version, endpoints, last_error from envs where id = $1', [id]))[0]!;
const healthy = async (version: string) => (await store.db.query<{ healthy: boolean }>('select healthy from versions where id = $1', [version]))[0]!.healthy;

function ctx(envId: string, o: { params?: Record<string, unknown>; state?: Record<string, unknown>; failure?: PhaseContext['failure'] } = {}): PhaseContext {
  return {
    deployment: { id: `dep_k${n}`, env: envId, params: o.params ?? {}, state: o.state ?? {}, created_at: new Date(Date.now() - 2000).toISOString() } as unknown as DeploymentRow,
    db: store.db,
    state: o.state ?? {},
    failure: o.failure ?? null,
    signal: new AbortController().signal,
    env: async () => (await store.db.query<EnvRow>('select * from envs where id = $1', [envId]))[0]!,
    call: async () => {
      throw new Error('no host in this test');
    },
  } as unknown as PhaseContext;
}
const FAILED = { phase: 'work', message: 'disk full' };
const run = (v: PhaseDef, c: PhaseContext) => v.run(c);
/** took_ms: from the deployment's creation (2 s before) to now. */
const TOOK = expect.any(Number);

describe('verdicts of the smaller kinds', () => {
  it('destroy: success clears the endpoints; failure leaves the record', async () => {
    const a = await env();
    expect(await run(destroyVerdict, ctx(a.id))).toEqual({ status: 'ok', evidence: { took_ms: TOOK }, outcome: 'succeeded' });
    expect((await row(a.id)).endpoints).toEqual([]);
    const b = await env();
    expect(await run(destroyVerdict, ctx(b.id, { failure: FAILED }))).toEqual({ status: 'ok', evidence: { took_ms: TOOK }, outcome: 'failed' });
    expect((await row(b.id)).endpoints).toHaveLength(1);
  });

  it('separate: released unless a phase failed', async () => {
    const a = await env();
    expect(await run(separateVerdict, ctx(a.id))).toEqual({ status: 'ok', evidence: { released: true }, outcome: 'succeeded' });
    expect(await run(separateVerdict, ctx(a.id, { failure: FAILED }))).toEqual({ status: 'ok', evidence: { released: false }, outcome: 'failed' });
  });

  it('stop: stopped with the current version, or not stopped', async () => {
    const a = await env();
    expect(await run(stopVerdict, ctx(a.id))).toEqual({ status: 'ok', evidence: { stopped: true, version: a.v1 }, outcome: 'succeeded' });
    expect(await run(stopVerdict, ctx(a.id, { failure: FAILED }))).toEqual({ status: 'ok', evidence: { stopped: false }, outcome: 'failed' });
  });

  it('start: started with the current version (nothing on the edge without a host), or not started', async () => {
    const a = await env();
    expect(await run(startVerdict, ctx(a.id))).toEqual({ status: 'ok', evidence: { version: a.v1, started: true }, outcome: 'succeeded' });
    expect(await run(startVerdict, ctx(a.id, { failure: FAILED }))).toEqual({ status: 'ok', evidence: { version: a.v1, started: false }, outcome: 'failed' });
    expect((await row(a.id)).endpoints).toEqual([{ service: 'web', url: 'http://127.0.0.1:1' }]);
  });

  it('snapshot: success makes the new version healthy and current; failure keeps the previous one', async () => {
    const a = await env();
    const ok = await run(snapshotVerdict, ctx(a.id, { state: { previous_version: a.v1, version: a.v2, snapshot: 'snap-2' } }));
    expect(ok).toEqual({ status: 'ok', evidence: { version: a.v2, snapshot: 'snap-2', took_ms: TOOK }, outcome: 'succeeded' });
    expect((await row(a.id)).current_version).toBe(a.v2);
    expect(await healthy(a.v2)).toBe(true);

    const b = await env();
    const failed = await run(snapshotVerdict, ctx(b.id, { state: { previous_version: b.v1, version: b.v2 }, failure: FAILED }));
    expect(failed).toEqual({ status: 'ok', evidence: { kept: b.v1, took_ms: TOOK }, outcome: 'failed' });
    expect((await row(b.id)).current_version).toBe(b.v1);
    expect(await healthy(b.v2)).toBe(false);
    expect((await run(snapshotVerdict, ctx(b.id, { failure: FAILED }))).evidence).toEqual({ kept: null, took_ms: TOOK });
  });

  it('fork: success makes the source version current with the clone’s endpoints and clears the last error; failure writes nothing', async () => {
    const a = await env();
    const clone = { endpoints: [...ENDPOINTS, { service: 'db', url: 'http://127.0.0.1:20002', public: 'https://db.example.com' }] } as unknown as EnvCreateResult;
    const ok = await run(forkVerdict, ctx(a.id, { params: { version: a.v2 }, state: { clone } }));
    expect(ok).toEqual({ status: 'ok', evidence: { env: a.id, took_ms: TOOK }, outcome: 'succeeded' });
    // Only service and url are kept of each endpoint.
    expect(await row(a.id)).toEqual({ current_version: a.v2, endpoints: [...ENDPOINTS, { service: 'db', url: 'http://127.0.0.1:20002' }], last_error: null });

    const b = await env();
    expect(await run(forkVerdict, ctx(b.id, { params: { version: b.v2 }, failure: FAILED }))).toEqual({ status: 'ok', evidence: { env: b.id, took_ms: TOOK }, outcome: 'failed' });
    expect(await row(b.id)).toEqual({ current_version: b.v1, endpoints: [{ service: 'web', url: 'http://127.0.0.1:1' }], last_error: 'earlier trouble' });
  });

  it('rollback: success makes the version current with the restored endpoints (no host: no edge); failure keeps the current one', async () => {
    const a = await env();
    const restore = { endpoints: ENDPOINTS } as unknown as EnvCreateResult;
    const ok = await run(rollbackVerdict, ctx(a.id, { params: { version: a.v2 }, state: { previous_version: a.v1, restore } }));
    expect(ok).toEqual({ status: 'ok', evidence: { version: a.v2, took_ms: TOOK }, outcome: 'succeeded' });
    expect(await row(a.id)).toEqual({ current_version: a.v2, endpoints: ENDPOINTS, last_error: null });

    const b = await env();
    const failed = await run(rollbackVerdict, ctx(b.id, { params: { version: b.v2 }, state: { previous_version: b.v1 }, failure: FAILED }));
    expect(failed).toEqual({ status: 'ok', evidence: { version: null, kept: b.v1, took_ms: TOOK }, outcome: 'failed' });
    expect((await row(b.id)).current_version).toBe(b.v1);
    expect((await run(rollbackVerdict, ctx(b.id, { params: { version: b.v2 }, failure: FAILED }))).evidence).toEqual({ version: null, kept: null, took_ms: TOOK });
  });

  it('took_ms runs from the deployment’s creation to the verdict', async () => {
    const a = await env();
    const before = Date.now();
    const took = ((await run(destroyVerdict, ctx(a.id))).evidence as { took_ms: number }).took_ms;
    // Created 2 s before the context was made, just above.
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThanOrEqual(Date.now() - before + 2000 + 50);
  });
});
