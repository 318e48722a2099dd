/**
 * The move verdict's decisions, each path alone: success, a failure before `switch` (nothing at
 * `place`; past it, the new host emptied and the old host's move snapshot removed), and a failure
 * after it (the old host emptied, or named as still holding the env). Its context is a small fake:
 * `call` answers what each test scripts and records what was sent; `agents` holds only the
 * transfer registry the verdict closes. test/clouds/move.test.ts runs a whole move with real
 * agents (success, and a failure at `start`).
 */
import { describe, expect, it } from 'vitest';
import type { AgentGateway } from '../../gateway/agent-gateway.js';
import type { DeploymentRow } from '../../store/rows.js';
import type { PhaseContext } from '../phase.js';
import type { MoveState } from './state.js';
import { verdict } from './verdict.js';

interface Sent {
  readonly host: string;
  readonly kind: string;
  readonly payload: unknown;
  readonly key: string | undefined;
}

/** What a scripted host answers a command: a result, or an Error to throw. */
type Answer = Record<string, unknown> | Error;

function context(state: MoveState, failure: PhaseContext['failure'], answers: Record<string, Answer> = {}): { ctx: PhaseContext; sent: Sent[]; closed: string[][]; createdAt: number } {
  const sent: Sent[] = [];
  const closed: string[][] = [];
  const createdAt = Date.now() - 5000;
  const deployment = { id: 'dep_m1', env: 'env_m', created_at: new Date(createdAt).toISOString() } as DeploymentRow;
  const agents = { transfers: { close: (host: string, id: string) => void closed.push([host, id]) } } as unknown as AgentGateway;
  const ctx = {
    deployment,
    agents,
    state: state as Record<string, unknown>,
    failure,
    signal: new AbortController().signal,
    call: async (host: string, kind: string, payload: unknown, key?: string) => {
      sent.push({ host, kind, payload, key });
      const answer = answers[`${host} ${kind}`];
      if (answer instanceof Error) throw answer;
      if (!answer) throw new Error(`no answer scripted for ${host} ${kind}`);
      return answer;
    },
  } as unknown as PhaseContext;
  return { ctx, sent, closed, createdAt };
}

const REMOVED = { processes: 1, datasets: 1, snapshots: 2, ports: 1 };
const moved: MoveState = { from: 'host_a', to: 'host_b', archive: { transfer: 'tr_m1', format: 'tar', bytes: 4096, sha256: 'f'.repeat(64), datasets: ['pgdata'], exported_in_ms: 3 } };
const prune = (host: string, key: string) => ({ host, kind: 'env.prune_snapshots', payload: { env: 'env_m', keep: [], remove: ['move-dep_m1'] }, key });
const destroy = (host: string, key: string) => ({ host, kind: 'env.destroy', payload: { env: 'env_m' }, key });

describe('move verdict', () => {
  it('success: runs on the new host, whose move snapshot is removed; transfers closed on both hosts', async () => {
    const { ctx, sent, closed, createdAt } = context({ ...moved, switched: true }, null, { 'host_b env.prune_snapshots': { removed: ['move-dep_m1'], kept: [], freed_bytes: 10 } });
    const before = Date.now();
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'succeeded' });
    expect(r.evidence).toEqual({ env: 'env_m', from: 'host_a', to: 'host_b', took_ms: expect.any(Number), bytes: 4096, runs_on: 'host_b', move_snapshot: { removed: ['move-dep_m1'] } });
    const took = (r.evidence as { took_ms: number }).took_ms;
    expect(took).toBeGreaterThanOrEqual(before - createdAt);
    expect(took).toBeLessThanOrEqual(Date.now() - createdAt);
    expect(sent).toEqual([prune('host_b', 'target-snapshot')]);
    expect(closed).toEqual([['host_a', 'tr_m1'], ['host_b', 'tr_m1']]);
  });

  it('success with the snapshot not removed: the error is evidence, the move still succeeded', async () => {
    const { ctx } = context({ ...moved, switched: true }, null, { 'host_b env.prune_snapshots': new Error('host host_b is not connected') });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'succeeded', evidence: { runs_on: 'host_b', move_snapshot: { error: 'host host_b is not connected' } } });
  });

  it('failed at place: nothing was made on a host, nothing is undone', async () => {
    const { ctx, sent, closed } = context({ from: 'host_a', to: 'host_b' }, { phase: 'place', message: 'host_b is drained' });
    const r = await verdict.run(ctx);
    expect(r).toEqual({ status: 'ok', outcome: 'failed', evidence: { env: 'env_m', from: 'host_a', to: 'host_b', took_ms: expect.any(Number), bytes: 0, runs_on: 'host_a', undone: {} } });
    expect(sent).toEqual([]);
    expect(closed).toEqual([['host_a', 'tr_m1'], ['host_b', 'tr_m1']]);
  });

  it('failed before switch, past place: the new host is emptied and the old host’s move snapshot removed; it serves on the old host', async () => {
    const { ctx, sent } = context(moved, { phase: 'start', message: 'process services are disabled' }, {
      'host_b env.destroy': { removed: REMOVED },
      'host_a env.prune_snapshots': { removed: ['move-dep_m1'], kept: [], freed_bytes: 0 },
    });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'failed' });
    expect(r.evidence).toMatchObject({ runs_on: 'host_a', bytes: 4096, undone: { target: REMOVED, snapshot: { removed: ['move-dep_m1'] } } });
    expect(sent).toEqual([destroy('host_b', 'undo-target'), prune('host_a', 'undo-snapshot')]);
  });

  it('failed before switch with an undo step failing: each failure is evidence, the other step still runs', async () => {
    const { ctx, sent } = context(moved, { phase: 'transfer', message: 'sha256 mismatch' }, {
      'host_b env.destroy': new Error('host host_b is not connected'),
      'host_a env.prune_snapshots': new Error('disk busy'),
    });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'failed', evidence: { runs_on: 'host_a', undone: { target: { error: 'host host_b is not connected' }, snapshot: { error: 'disk busy' } } } });
    expect(sent.map((s) => s.key)).toEqual(['undo-target', 'undo-snapshot']);
  });

  it('failed before any host was chosen: runs_on null, only what is known is undone', async () => {
    const { ctx, sent, closed } = context({}, { phase: 'snapshot', message: 'x' });
    const r = await verdict.run(ctx);
    expect(r.evidence).toMatchObject({ from: null, to: null, runs_on: null, bytes: 0, undone: {} });
    expect(sent).toEqual([]);
    expect(closed).toEqual([]);
  });

  it('failed after switch, before retire ran: the env stays on the new host and the old one is emptied (retired)', async () => {
    const { ctx, sent } = context({ ...moved, switched: true }, { phase: 'switch', message: 'edge: caddy refused the route' }, { 'host_a env.destroy': { removed: REMOVED } });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'failed' });
    expect(r.evidence).toEqual({ env: 'env_m', from: 'host_a', to: 'host_b', took_ms: expect.any(Number), bytes: 4096, runs_on: 'host_b', retired: REMOVED });
    expect(sent).toEqual([destroy('host_a', 'undo-retire')]);
  });

  it('failed after switch with the old host not emptied: left_on names it, with why', async () => {
    const { ctx } = context({ ...moved, switched: true }, { phase: 'switch', message: 'x' }, { 'host_a env.destroy': new Error('host host_a is not connected') });
    const r = await verdict.run(ctx);
    expect(r.evidence).toEqual({ env: 'env_m', from: 'host_a', to: 'host_b', took_ms: expect.any(Number), bytes: 4096, runs_on: 'host_b', left_on: 'host_a', retire_error: { error: 'host host_a is not connected' } });
  });

  it('failed at retire: not retried here; left_on names the old host, no retire_error', async () => {
    const { ctx, sent } = context({ ...moved, switched: true }, { phase: 'retire', message: 'host_a: env.destroy timed out' });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'failed' });
    expect(r.evidence).toEqual({ env: 'env_m', from: 'host_a', to: 'host_b', took_ms: expect.any(Number), bytes: 4096, runs_on: 'host_b', left_on: 'host_a' });
    expect(sent).toEqual([]);
  });
});
