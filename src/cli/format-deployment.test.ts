import { describe, expect, it } from 'vitest';
import type { Deployment, Phase } from '../contracts/domain.js';
import { PhaseProgress, formatDeploymentDetail, formatOutcome, formatPhaseLine } from './format-deployment.js';

const t0 = '2025-01-01T00:00:00.000Z';
const at = (ms: number): string => new Date(Date.parse(t0) + ms).toISOString();

function phase(name: string, status: Phase['status'], extra: Partial<Phase> = {}): Phase {
  return { name, status, evidence: null, started_at: null, finished_at: null, ...extra };
}

function deployment(phases: Phase[], extra: Partial<Deployment> = {}): Deployment {
  return { id: 'dep_1', kind: 'deploy', env: 'env_1', status: 'running', error: null, created_at: t0, finished_at: null, phases, ...extra };
}

describe('formatPhaseLine', () => {
  it('shows symbol, padded name, duration and evidence', () => {
    const p = phase('prepare', 'ok', {
      started_at: at(0),
      finished_at: at(412),
      evidence: { endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001' }] },
    });
    expect(formatPhaseLine(p, 9)).toBe('  ✓ prepare     412 ms  endpoints=web→http://127.0.0.1:20001');
  });

  it('shows a running phase without duration or evidence', () => {
    expect(formatPhaseLine(phase('join', 'running', { started_at: at(0) }), 4)).toBe('  … join');
  });

  it('shows failed and skipped phases with their symbols', () => {
    expect(formatPhaseLine(phase('health', 'failed', { started_at: at(0), finished_at: at(2500), evidence: { error: 'timeout' } }), 6)).toBe(
      '  ✗ health    2.5 s  error=timeout',
    );
    expect(formatPhaseLine(phase('warm', 'skipped', { evidence: { reason: 'no warm command' } }), 4)).toBe('  – warm           reason="no warm command"');
  });
});

describe('formatOutcome', () => {
  it('gives the status, the time taken and the error', () => {
    expect(formatOutcome(deployment([], { status: 'succeeded', finished_at: at(1900) }))).toBe('succeeded in 1.9 s');
    expect(formatOutcome(deployment([], { status: 'rolled_back', finished_at: at(5000), error: 'prepare: unhealthy' }))).toBe(
      'rolled_back in 5.0 s: prepare: unhealthy',
    );
  });
});

describe('PhaseProgress', () => {
  it('prints the header once and each phase when its status changes', () => {
    const progress = new PhaseProgress();
    const first = progress.update(deployment([phase('resolve', 'running', { started_at: at(0) }), phase('verdict', 'pending')]), 0);
    expect(first).toEqual(['deploy dep_1 on env_1', '  … resolve']);
    expect(progress.update(deployment([phase('resolve', 'running', { started_at: at(0) }), phase('verdict', 'pending')]), 1)).toEqual([]);
    const done = progress.update(
      deployment([phase('resolve', 'ok', { started_at: at(0), finished_at: at(5) }), phase('verdict', 'ok', { started_at: at(5), finished_at: at(7) })]),
      2,
    );
    expect(done).toEqual(['  ✓ resolve     5 ms', '  ✓ verdict     2 ms']);
  });
});

describe('PhaseProgress with a running threshold', () => {
  const running = deployment([phase('join', 'running', { started_at: at(0) })]);
  const done = deployment([phase('join', 'ok', { started_at: at(0), finished_at: at(300) })]);

  it('prints only the final line of a fast phase', () => {
    const progress = new PhaseProgress(1000);
    expect(progress.update(running, 0)).toEqual(['deploy dep_1 on env_1']);
    expect(progress.tick(500)).toEqual([]);
    expect(progress.update(done, 600)).toEqual(['  ✓ join   300 ms']);
    expect(progress.tick(5000)).toEqual([]);
  });

  it('shows a slow phase as running once the threshold passes', () => {
    const progress = new PhaseProgress(1000);
    progress.update(running, 0);
    expect(progress.tick(999)).toEqual([]);
    expect(progress.tick(1000)).toEqual(['  … join']);
    expect(progress.tick(2000)).toEqual([]);
    expect(progress.update(done, 3000)).toEqual(['  ✓ join   300 ms']);
  });
});

describe('formatDeploymentDetail', () => {
  it('lists the fields and every phase', () => {
    const text = formatDeploymentDetail(
      deployment([phase('teardown', 'ok', { started_at: at(0), finished_at: at(3) }), phase('verdict', 'pending')], {
        kind: 'destroy',
        status: 'failed',
        error: 'teardown: boom',
        finished_at: at(10),
      }),
    );
    expect(text).toContain('status:    failed');
    expect(text).toContain('error:     teardown: boom');
    expect(text).toContain('  ✓ teardown     3 ms');
    expect(text).toContain('  · verdict');
  });
});
