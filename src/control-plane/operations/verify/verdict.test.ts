/**
 * The verify verdict's evidence and clean-up, path by path: the grade or null, the grader fork
 * destroyed (or why not) and torn down in the record, the agent service resumed when asked, and
 * what `refused`, `missing` and `agent_frozen` say. The store is real (embedded; the verdict's one
 * statement is plain SQL); the host is a scripted `call` with a connected-or-not flag.
 * test/verify.test.ts grades real sandboxes end to end.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CollectResult, VerifyRunResult } from '../../../contracts/verify.js';
import type { AgentGateway } from '../../gateway/agent-gateway.js';
import type { DeploymentRow } from '../../store/rows.js';
import type { PhaseContext } from '../phase.js';
import type { VerifyState } from './state.js';
import { verdict } from './verdict.js';
import { embeddedProjectStore } from '../../../../test/helpers/stores.js';

const store = embeddedProjectStore('team_v', 'prj_v', 'sandbox');
let graders = 0;
beforeAll(async () => {
  await store.db.query("insert into envs (id, team, project, name, stage, status) values ('env_agent', 'team_v', 'prj_v', 'agent', 'preview', 'running')");
});

/** A grader fork env, running with an endpoint, as the fork phase leaves it. */
async function graderEnv(): Promise<string> {
  const id = `env_grader${++graders}`;
  await store.db.query(
    `insert into envs (id, team, project, name, stage, status, endpoints) values ($1, 'team_v', 'prj_v', $2, 'preview', 'running', '[{"service":"verifier","url":"http://127.0.0.1:1"}]')`,
    [id, `grader${graders}`],
  );
  return id;
}
const envRow = async (id: string) => (await store.db.query<{ status: string; endpoints: unknown[] }>('select status, endpoints from envs where id = $1', [id]))[0]!;

interface Sent {
  readonly kind: string;
  readonly payload: unknown;
  readonly key: string | undefined;
}

function context(state: VerifyState, o: { failure?: PhaseContext['failure']; resume?: boolean; connected?: boolean; answers?: Record<string, unknown> } = {}): { ctx: PhaseContext; sent: Sent[] } {
  const sent: Sent[] = [];
  const connected = o.connected ?? true;
  const agents = { isConnected: () => connected, waitConnected: async () => connected } as unknown as AgentGateway;
  const ctx = {
    deployment: { id: 'dep_v1', env: 'env_agent', params: { resume: o.resume ?? false }, created_at: new Date().toISOString() } as unknown as DeploymentRow,
    db: store.db,
    agents,
    config: { agentWaitMs: 10 },
    state: state as Record<string, unknown>,
    failure: o.failure ?? null,
    signal: new AbortController().signal,
    call: async (_host: string, kind: string, payload: unknown, key?: string) => {
      sent.push({ kind, payload, key });
      const answer = o.answers?.[kind];
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error(`no answer scripted for ${kind}`);
      return answer;
    },
  } as unknown as PhaseContext;
  return { ctx, sent };
}

const collect = (o: Partial<CollectResult> = {}): CollectResult => ({ files: 3, bytes: 120, missing: [], refused: [], refused_count: 0, paused: true, ...o });
const grade = (o: Partial<VerifyRunResult> = {}): VerifyRunResult => ({ reward: 0.75, source: 'file', exit_code: 0, stdout: '', stderr: '', timed_out: false, ran_for: 40, ...o }) as VerifyRunResult;
const DESTROYED = { removed: { processes: 1, datasets: 1, snapshots: 0, ports: 1 } };

describe('verify verdict', () => {
  it('succeeded: the grade, the capture, the grader fork destroyed and torn down; the agent stays paused (frozen)', async () => {
    const grader = await graderEnv();
    const { ctx, sent } = context({ host: 'host_1', agent_service: 'agent', capture: 'ver_2', grader_env: grader, collect: collect(), grade: grade() }, { answers: { 'env.destroy': DESTROYED } });
    const r = await verdict.run(ctx);
    expect(r).toEqual({
      status: 'ok',
      outcome: 'succeeded',
      evidence: { reward: 0.75, source: 'file', exit_code: 0, refused: false, missing: [], agent_frozen: true, took_ms: expect.any(Number), capture: 'ver_2', grader_env: grader, grader_destroyed: true },
    });
    expect(sent).toEqual([{ kind: 'env.destroy', payload: { env: grader }, key: 'grader' }]);
    expect(await envRow(grader)).toEqual({ status: 'torn_down', endpoints: [] });
  });

  it('failed: reward and source are null (the exit code is kept), outcome failed', async () => {
    const { ctx } = context({ host: 'host_1', grade: grade({ reward: 1, exit_code: 3 }) }, { failure: { phase: 'grade', message: 'verifier exited 3' } });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ status: 'ok', outcome: 'failed', evidence: { reward: null, source: null, exit_code: 3, grader_env: null, grader_destroyed: false, capture: null } });
  });

  it('nothing graded or collected: every field says so', async () => {
    const { ctx, sent } = context({}, { failure: { phase: 'capture', message: 'x' } });
    const r = await verdict.run(ctx);
    expect(r.evidence).toEqual({ reward: null, source: null, exit_code: null, refused: false, missing: [], agent_frozen: false, took_ms: expect.any(Number), capture: null, grader_env: null, grader_destroyed: false });
    expect(sent).toEqual([]);
  });

  it('refused and missing paths are reported; refused counts all refusals, not the listed ones', async () => {
    const { ctx } = context({ collect: collect({ missing: ['/out/result.json'], refused: [], refused_count: 2, paused: false }), grade: grade() });
    const r = await verdict.run(ctx);
    expect(r.evidence).toMatchObject({ refused: true, missing: ['/out/result.json'], agent_frozen: false });
  });

  it('the grader host unreachable: not destroyed (its data stays there), still torn down in the record', async () => {
    const grader = await graderEnv();
    const { ctx, sent } = context({ host: 'host_1', grader_env: grader, grade: grade() }, { connected: false });
    const r = await verdict.run(ctx);
    expect(r.evidence).toMatchObject({ grader_env: grader, grader_destroyed: false });
    expect(sent).toEqual([]);
    expect((await envRow(grader)).status).toBe('torn_down');
  });

  it('the grader destroy failing: grader_destroyed says why, the verdict still succeeds', async () => {
    const grader = await graderEnv();
    const { ctx } = context({ host: 'host_1', grader_env: grader, grade: grade() }, { answers: { 'env.destroy': new Error('disk busy') } });
    const r = await verdict.run(ctx);
    expect(r).toMatchObject({ outcome: 'succeeded', evidence: { grader_destroyed: 'destroy failed: disk busy' } });
    expect((await envRow(grader)).status).toBe('torn_down');
  });

  it('resume: true sends env.resume for the agent service once (not when it was sent already); a host gone leaves it frozen', async () => {
    const resumed = context({ host: 'host_1', agent_service: 'agent', collect: collect(), grade: grade() }, { resume: true, answers: { 'env.resume': {} } });
    expect((await verdict.run(resumed.ctx)).evidence).toMatchObject({ agent_frozen: false });
    expect(resumed.sent).toEqual([{ kind: 'env.resume', payload: { env: 'env_agent', service: 'agent' }, key: 'resume' }]);

    const already = context({ host: 'host_1', agent_service: 'agent', collect: collect(), grade: grade(), resumed: true }, { resume: true });
    expect((await verdict.run(already.ctx)).evidence).toMatchObject({ agent_frozen: false });
    expect(already.sent).toEqual([]);

    const gone = context({ host: 'host_1', agent_service: 'agent', collect: collect(), grade: grade() }, { resume: true, answers: { 'env.resume': new Error('host host_1 is not connected') } });
    expect((await verdict.run(gone.ctx)).evidence).toMatchObject({ agent_frozen: true });
    expect(gone.sent.map((s) => s.kind)).toEqual(['env.resume']);

    // Without resume: true nothing is sent, whatever the state.
    const kept = context({ host: 'host_1', agent_service: 'agent', collect: collect(), grade: grade() });
    expect((await verdict.run(kept.ctx)).evidence).toMatchObject({ agent_frozen: true });
    expect(kept.sent).toEqual([]);
  });
});
