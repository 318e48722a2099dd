import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podStatus } from './pod-status.js';

const pod = (status: V1Pod['status']): V1Pod => ({ metadata: { name: 'web-abc-0' }, status });
const readyCond = (ready: boolean) => [{ type: 'Ready', status: ready ? 'True' : 'False' }];

describe('podStatus', () => {
  it('a running, ready pod has no reason', () => {
    expect(podStatus(pod({ phase: 'Running', conditions: readyCond(true), containerStatuses: [{ name: 'a', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] }))).toEqual({
      name: 'web-abc-0',
      phase: 'Running',
      ready: true,
      restarts: 0,
      reason: null,
    });
  });

  it('sums restarts and prefers a waiting reason to a last termination', () => {
    const s = podStatus(
      pod({
        phase: 'Running',
        conditions: readyCond(false),
        containerStatuses: [
          { name: 'a', image: 'i', imageID: '', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } },
          { name: 'b', image: 'i', imageID: '', ready: true, restartCount: 1, state: { running: {} } },
        ],
      }),
    );
    expect(s).toMatchObject({ ready: false, restarts: 5, reason: 'CrashLoopBackOff' });
  });

  it('reports the last termination while not ready, but not once the pod is ready again', () => {
    const c = { name: 'a', image: 'i', imageID: '', restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } } };
    expect(podStatus(pod({ phase: 'Running', conditions: readyCond(false), containerStatuses: [{ ...c, ready: false }] })).reason).toBe('OOMKilled');
    expect(podStatus(pod({ phase: 'Running', conditions: readyCond(true), containerStatuses: [{ ...c, ready: true }] })).reason).toBeNull();
  });

  it('falls back to the pod\'s reason and an unschedulable condition', () => {
    expect(podStatus(pod({ phase: 'Failed', reason: 'Evicted' })).reason).toBe('Evicted');
    expect(podStatus(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }))).toMatchObject({ phase: 'Pending', ready: false, reason: 'Unschedulable' });
  });
});
