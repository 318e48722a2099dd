import { describe, expect, it } from 'vitest';
import type { Phase } from '../../contracts/domain.js';
import { createBus } from '../bus.js';
import { DeploymentObserver } from './deployment-observer.js';

const phase = (name: string, status: Phase['status'], ms?: number): Phase => ({
  name, status, evidence: {},
  started_at: ms === undefined ? null : '2026-12-01T00:00:00.000Z',
  finished_at: ms === undefined ? null : new Date(Date.parse('2026-12-01T00:00:00.000Z') + ms).toISOString(),
});

describe('DeploymentObserver', () => {
  it('counts each start, finished phase and end once, from what the engine committed', () => {
    const bus = createBus();
    const seen: string[] = [];
    const observer = new DeploymentObserver(bus, {
      started: (kind) => seen.push(`started ${kind}`),
      finished: (kind, status) => seen.push(`finished ${kind} ${status}`),
      phase: (kind, name, status, s) => seen.push(`phase ${kind} ${name} ${status} ${s}`),
    });
    const progress = (status: string, phases: Phase[]) => bus.emit('progress', { id: 'dep_1', kind: 'deploy', status, phases });

    progress('pending', [phase('resolve', 'pending')]);
    progress('running', [phase('resolve', 'running')]);
    progress('running', [phase('resolve', 'ok', 250), phase('place', 'running')]);
    progress('running', [phase('resolve', 'ok', 250), phase('place', 'running')]);
    progress('failed', [phase('resolve', 'ok', 250), phase('place', 'failed', 1500)]);
    progress('failed', [phase('resolve', 'ok', 250), phase('place', 'failed', 1500)]);
    observer.close();
    progress('running', [phase('resolve', 'ok', 250)]);
    bus.emit('progress', { id: 'dep_2', kind: 'deploy', status: 'running', phases: [] });

    expect(seen).toEqual(['started deploy', 'phase deploy resolve ok 0.25', 'phase deploy place failed 1.5', 'finished deploy failed']);
  });
});
