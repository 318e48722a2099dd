import { describe, expect, it } from 'vitest';
import { DEPLOY_STAGE_NAMES, type PipelineAnswer, type StageName, type TerminalState } from '../../../contracts/envelope.js';
import type { EnvCreateResult } from '../../../contracts/protocol.js';
import { drainMs, refusedBeforeAnyEffect } from './verdict.js';
import type { IngressState } from './state.js';

/** A pipeline answer that ended `state` at stage `at` (every later stage skipped). */
function pipeline(state: TerminalState, at: StageName | null): PipelineAnswer {
  const end = at === null ? DEPLOY_STAGE_NAMES.length : DEPLOY_STAGE_NAMES.indexOf(at as (typeof DEPLOY_STAGE_NAMES)[number]);
  return {
    state,
    stages: DEPLOY_STAGE_NAMES.map((name, i) => ({ name, status: i < end ? 'ok' : i === end ? 'failed' : 'skipped', took_ms: 0 })),
  };
}

const result = (outcome: EnvCreateResult['outcome'], pipelines?: Record<string, PipelineAnswer>): EnvCreateResult => ({
  outcome,
  message: null,
  started_in_ms: 1,
  healthy_in_ms: null,
  endpoints: [],
  datasets: [],
  egress: { ok: true, target: 'x', detail: '' },
  services: {},
  ...(pipelines ? { pipelines } : {}),
});

describe('refusedBeforeAnyEffect', () => {
  it('names the gate of each service when every image service was refused at admit, verify or pull', () => {
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure', 'admit'), api: pipeline('failure', 'pull') }))).toEqual({ web: 'admit', api: 'pull' });
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure', 'verify') }))).toEqual({ web: 'verify' });
  });

  it('is null when something may have changed: a service got further, was rolled back, or there are no pipelines', () => {
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure', 'admit'), api: pipeline('success', null) }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('unhealthy', { web: pipeline('failure_rolled_back', 'health') }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure', 'recreate') }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('start_failed'))).toBeNull();
    expect(refusedBeforeAnyEffect(result('start_failed', {}))).toBeNull();
    expect(refusedBeforeAnyEffect(undefined)).toBeNull();
    // Each condition alone: another outcome, another terminal state, no failed stage.
    expect(refusedBeforeAnyEffect(result('unhealthy', { web: pipeline('failure', 'admit') }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('healthy', { web: pipeline('failure', 'pull') }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure_rolled_back', 'pull') }))).toBeNull();
    expect(refusedBeforeAnyEffect(result('start_failed', { web: pipeline('failure', null) }))).toBeNull();
  });
});

describe('drainMs', () => {
  const route = (id: string, drain_ms: number) => ({ id, service: id, hostnames: [`${id}.example.com`], tls: 'off' as const, port: 4100, drain_ms });
  const ingress = (switched: string[]): IngressState => ({
    desired: { routes: [route('a', 300), route('b', 2000)], names: [], skipped: [] },
    result: {
      proxy: { provider: 'caddy', status: 'ok', endpoint: 'caddy', changes: [{ key: 'a', action: 'created' }, { key: 'b', action: 'unchanged' }], switched: switched.map((key) => ({ key, from: 4100, to: 4101 })) },
      dns: { provider: 'none', status: 'skipped', endpoint: 'none', changes: [], addresses: [] },
    },
  });

  it('waits the longest drain of the routes the relay switched to the new version, and not at all when none switched', () => {
    expect(drainMs(ingress(['a']))).toBe(300);
    expect(drainMs(ingress(['a', 'b']))).toBe(2000);
    expect(drainMs(ingress([]))).toBe(0);
    expect(drainMs(undefined)).toBe(0);
  });
});
