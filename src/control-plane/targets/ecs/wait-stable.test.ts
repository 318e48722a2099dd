import type { Deployment, Service } from '@aws-sdk/client-ecs';
import { describe, expect, test } from 'vitest';
import { judgeService } from './wait-stable.js';

const TD1 = 'arn:aws:ecs:eu-central-1:1:task-definition/denv-prod:1';
const TD2 = 'arn:aws:ecs:eu-central-1:1:task-definition/denv-prod:2';
const dep = (over: Partial<Deployment>): Deployment => ({ id: 'ecs-svc/1', status: 'PRIMARY', taskDefinition: TD2, desiredCount: 1, runningCount: 0, pendingCount: 0, rolloutState: 'IN_PROGRESS', ...over });
const svc = (deployments: Deployment[], events: string[] = []): Service => ({ status: 'ACTIVE', deployments, events: events.map((message) => ({ message })) });

describe('judgeService', () => {
  test('stable: one PRIMARY deployment with running == desired', () => {
    expect(judgeService(svc([dep({ runningCount: 1 })]), TD2)).toEqual({ outcome: 'stable', runningCount: 1 });
    expect(judgeService(svc([dep({ desiredCount: 0 })]))).toEqual({ outcome: 'stable', runningCount: 0 });
  });
  test('waiting while the old deployment is still there or tasks are pending, saying why', () => {
    const v = judgeService(svc([dep({ runningCount: 1 }), dep({ id: 'ecs-svc/0', status: 'ACTIVE', taskDefinition: TD1, runningCount: 1 })], ['(service denv-prod) has started 1 tasks']), TD2);
    expect(v).toEqual({ outcome: 'waiting', detail: '1/1 running, 0 pending, 2 deployment(s); last event: (service denv-prod) has started 1 tasks' });
    expect(judgeService(svc([dep({ pendingCount: 1 })]), TD2).outcome).toBe('waiting');
  });
  test('failed: the circuit breaker failed our deployment, or the service was rolled back', () => {
    expect(judgeService(svc([dep({ rolloutState: 'FAILED', rolloutStateReason: 'ECS deployment circuit breaker: tasks failed to start.' })]), TD2)).toEqual({
      outcome: 'failed',
      reason: 'ECS deployment circuit breaker: tasks failed to start.',
    });
    expect(judgeService(svc([dep({ taskDefinition: TD1, runningCount: 1 })]), TD2)).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('rolled back or superseded') });
    expect(judgeService(null)).toMatchObject({ outcome: 'failed' });
  });
});
