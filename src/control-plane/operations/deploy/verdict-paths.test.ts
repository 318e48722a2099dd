/**
 * The deploy verdict's paths, each alone: success (the version healthy and current, after the
 * drain of the routes ingress switched), and on failure — refused before any effect, no version to
 * return to, the host away, the rollback failing, and the rollback that makes the previous version
 * current again. The store is real (embedded); the host is scripted: `call` answers what each test
 * sets and records what was sent. test/deploy.test.ts and test/rollback tests run whole deploys with
 * real agents; here a revert that does nothing cannot look like one that worked.
 */
import { describe, expect, it } from 'vitest';
import type { EnvCreateResult } from '../../../contracts/protocol.js';
import type { AgentGateway } from '../../gateway/agent-gateway.js';
import type { DeploymentRow, EnvRow } from '../../store/rows.js';
import type { PhaseContext } from '../phase.js';
import type { DeployState } from './state.js';
import { verdict } from './verdict.js';
import { embeddedProjectStore } from '../../../../test/helpers/stores.js';

const store = embeddedProjectStore('team_d', 'prj_d', 'shop');
let n = 0;

const SPEC = { services: { web: { command: ['node', 'server.js'] } }, volumes: ['data'] };
const SHOWN = [{ service: 'web', url: 'http://127.0.0.1:20001', public: ['http://shop.example.com'] }];

/** An env serving version 1 (healthy, `previousHealthy`), with version 2 being deployed (not yet healthy). */
async function env(o: { previousHealthy?: boolean } = {}): Promise<{ id: string; v1: string; v2: string }> {
  const id = `env_d${++n}`;
  const [v1, v2] = [`ver_d${n}a`, `ver_d${n}b`];
  await store.db.query("insert into envs (id, team, project, name, stage, status, endpoints, last_error) values ($1, 'team_d', 'prj_d', $2, 'preview', 'running', $3, 'earlier trouble')", [id, `d${n}`, JSON.stringify(SHOWN)]);
  await store.db.query('insert into versions (id, env, number, spec, healthy, snapshot) values ($1, $3, 1, $4, $5, $6), ($2, $3, 2, $4, false, null)', [v1, v2, id, JSON.stringify(SPEC), o.previousHealthy ?? true, 'snap-v1']);
  await store.db.query('update envs set current_version = $2 where id = $1', [id, v1]);
  return { id, v1, v2 };
}

const record = async (id: string) => (await store.db.query<Pick<EnvRow, 'current_version' | 'endpoints' | 'last_error'>>('select current_version, endpoints, last_error from envs where id = $1', [id]))[0]!;
const healthy = async (version: string) => (await store.db.query<{ healthy: boolean }>('select healthy from versions where id = $1', [version]))[0]!.healthy;

interface Sent {
  readonly host: string;
  readonly kind: string;
  readonly payload: Record<string, unknown>;
  readonly key: string | undefined;
  readonly at: number;
}

const started = (port: number): EnvCreateResult & { restored: null } => ({
  outcome: 'healthy',
  message: null,
  started_in_ms: 5,
  healthy_in_ms: 9,
  endpoints: [{ service: 'web', url: `http://127.0.0.1:${port}`, port }],
  datasets: [],
  egress: { ok: true, target: 'x', detail: '' },
  services: {},
  restored: null,
});

/** The verdict's context: deployment of `envId` with `state`, `failure`, a host that is `connected`
 *  and answers env.rollback with `answer` (an Error is thrown). */
function context(envId: string, state: DeployState, o: { failure?: PhaseContext['failure']; connected?: boolean; answer?: EnvCreateResult | Error } = {}) {
  const sent: Sent[] = [];
  const waited: string[] = [];
  const agents = {
    waitConnected: async (host: string) => {
      waited.push(host);
      return o.connected ?? true;
    },
  } as unknown as AgentGateway;
  const ctx = {
    deployment: { id: `dep_d${n}`, env: envId, params: { spec: SPEC, warm: null, target: null }, state, created_at: new Date(Date.now() - 3000).toISOString() } as unknown as DeploymentRow,
    db: store.db,
    agents,
    config: { commandTimeoutMs: 60_000, agentWaitMs: 1000, allowFileRepos: false, joinTimeoutMs: 1000 },
    state: state as Record<string, unknown>,
    failure: o.failure ?? null,
    signal: new AbortController().signal,
    env: async () => (await store.db.query<EnvRow>('select * from envs where id = $1', [envId]))[0]!,
    call: async (host: string, kind: string, payload: Record<string, unknown>, key?: string) => {
      sent.push({ host, kind, payload, key, at: performance.now() });
      if (o.answer instanceof Error) throw o.answer;
      return o.answer ?? started(20002);
    },
  } as unknown as PhaseContext;
  return { ctx, sent, waited };
}

const FAILED = { phase: 'health', message: 'web: connection refused' };
/** took_ms: from the deployment's creation (3 s before) to now. */
const TOOK = expect.any(Number);
const rollbackTo = (e: { id: string }, version: string, snapshot: string | null) => ({
  env: e.id,
  version,
  services: SPEC.services,
  volumes: SPEC.volumes,
  snapshot,
  restore_data: false,
});

describe('deploy verdict on success', () => {
  it('activates the new version on its host, marks it healthy and current with its endpoints, and clears the last error', async () => {
    const e = await env();
    const { ctx, sent } = context(e.id, { version: e.v2, host: 'host_d', snapshot: 'snap-v2' });
    const r = await verdict.run(ctx);
    expect(r).toEqual({ status: 'ok', evidence: { version: e.v2, snapshot: 'snap-v2', took_ms: TOOK }, outcome: 'succeeded' });
    // From the deployment's creation, 3 s before: not a sum of the two clocks.
    expect((r.evidence as { took_ms: number }).took_ms).toBeGreaterThanOrEqual(3000);
    expect((r.evidence as { took_ms: number }).took_ms).toBeLessThan(60_000);
    expect(sent.map(({ host, kind, payload, key }) => ({ host, kind, payload, key }))).toEqual([
      { host: 'host_d', kind: 'env.rollback', payload: rollbackTo(e, e.v2, 'snap-v2'), key: 'activate' },
    ]);
    expect(await healthy(e.v2)).toBe(true);
    expect(await record(e.id)).toEqual({ current_version: e.v2, endpoints: [{ service: 'web', url: 'http://127.0.0.1:20002' }], last_error: null });
  });

  it('waits out the longest drain of the routes ingress switched before the old version stops, and shows the public URLs', async () => {
    const e = await env();
    const route = (id: string, drain_ms: number) => ({ id, service: id, hostnames: [`${id}.example.com`], tls: 'off' as const, port: 4100, drain_ms });
    const ingress: DeployState['ingress'] = {
      desired: { routes: [route('web', 400), route('api', 5000)], names: [], skipped: [] },
      result: {
        proxy: { provider: 'caddy', status: 'ok', endpoint: 'caddy', changes: [], switched: [{ key: 'web', from: 4100, to: 4101 }] },
        dns: { provider: 'none', status: 'skipped', endpoint: 'none', changes: [], addresses: [] },
      },
    };
    const { ctx, sent } = context(e.id, { version: e.v2, host: 'host_d', ingress });
    const before = performance.now();
    const r = await verdict.run(ctx);
    expect(r).toEqual({ status: 'ok', evidence: { version: e.v2, snapshot: null, took_ms: TOOK, drained_ms: 400 }, outcome: 'succeeded' });
    expect(sent[0]!.at - before).toBeGreaterThanOrEqual(400);
    expect((await record(e.id)).endpoints).toEqual([{ service: 'web', url: 'http://127.0.0.1:20002', public: ['http://web.example.com'] }]);
  });
});

describe('deploy verdict on failure', () => {
  it('refused by the host before any effect: nothing sent, the env as it was, `changed: false` naming each refusal', async () => {
    const e = await env();
    const create = { ...started(20002), outcome: 'start_failed' as const, pipelines: { web: { state: 'failure' as const, stages: [{ name: 'admit' as const, status: 'failed' as const, took_ms: 1 }] } } };
    const { ctx, sent, waited } = context(e.id, { version: e.v2, host: 'host_d', previous_version: e.v1, create }, { failure: FAILED });
    expect(await verdict.run(ctx)).toEqual({ status: 'ok', evidence: { changed: false, refused: { web: 'admit' }, current_version: e.v1, took_ms: TOOK }, outcome: 'failed' });
    expect([sent, waited]).toEqual([[], []]);
    expect(await record(e.id)).toEqual({ current_version: e.v1, endpoints: SHOWN, last_error: 'earlier trouble' });
  });

  it('with no previous version, or one never healthy, or no host placed: failed, nothing sent', async () => {
    const cases: [string, (e: { v1: string }) => DeployState, { previousHealthy?: boolean }][] = [
      ['first deploy', () => ({ host: 'host_d', previous_version: null }), {}],
      ['previous not healthy', (e) => ({ host: 'host_d', previous_version: e.v1 }), { previousHealthy: false }],
      ['no host', (e) => ({ host: null, previous_version: e.v1 }), {}],
    ];
    for (const [what, state, o] of cases) {
      const e = await env(o);
      const { ctx, sent, waited } = context(e.id, { version: e.v2, ...state(e) }, { failure: FAILED });
      expect(await verdict.run(ctx), what).toEqual({ status: 'ok', evidence: { reverted: 'no previous version', took_ms: TOOK }, outcome: 'failed' });
      expect([sent, waited], what).toEqual([[], []]);
      expect(await record(e.id), what).toEqual({ current_version: e.v1, endpoints: SHOWN, last_error: 'earlier trouble' });
    }
  });

  it('makes the previous version current again: env.rollback to it (data kept), its endpoints, public URLs as shown before', async () => {
    const e = await env();
    const { ctx, sent, waited } = context(e.id, { version: e.v2, host: 'host_d', previous_version: e.v1 }, { failure: FAILED, answer: started(20007) });
    // The record displaced, as if the new version had been made current: only the revert's own write brings version 1 back.
    await store.db.query('update envs set current_version = $2 where id = $1', [e.id, e.v2]);
    expect(await verdict.run(ctx)).toEqual({ status: 'ok', evidence: { reverted_to: e.v1, took_ms: TOOK }, outcome: 'rolled_back' });
    expect(waited).toEqual(['host_d']);
    expect(sent.map(({ host, kind, payload, key }) => ({ host, kind, payload, key }))).toEqual([
      { host: 'host_d', kind: 'env.rollback', payload: rollbackTo(e, e.v1, 'snap-v1'), key: 'rollback' },
    ]);
    expect(await record(e.id)).toEqual({ current_version: e.v1, endpoints: [{ service: 'web', url: 'http://127.0.0.1:20007', public: ['http://shop.example.com'] }], last_error: 'earlier trouble' });
    expect(await healthy(e.v2)).toBe(false);
  });

  it('a rollback that cannot run fails the verdict saying why: the host away, or the command failing; the record untouched', async () => {
    const away = await env();
    const a = context(away.id, { version: away.v2, host: 'host_d', previous_version: away.v1 }, { failure: FAILED, connected: false });
    expect(await verdict.run(a.ctx)).toEqual({ status: 'failed', evidence: { reverted: 'rollback failed: host host_d is not connected', took_ms: TOOK }, outcome: 'failed' });
    expect(a.sent).toEqual([]);
    expect(await record(away.id)).toEqual({ current_version: away.v1, endpoints: SHOWN, last_error: 'earlier trouble' });

    const broken = await env();
    const b = context(broken.id, { version: broken.v2, host: 'host_d', previous_version: broken.v1 }, { failure: FAILED, answer: new Error('disk full') });
    expect(await verdict.run(b.ctx)).toEqual({ status: 'failed', evidence: { reverted: 'rollback failed: disk full', took_ms: TOOK }, outcome: 'failed' });
    expect(b.sent).toHaveLength(1);
    expect(await record(broken.id)).toEqual({ current_version: broken.v1, endpoints: SHOWN, last_error: 'earlier trouble' });
  });
});
