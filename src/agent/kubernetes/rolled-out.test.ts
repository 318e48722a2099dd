import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { rolledOut } from './rolled-out.js';

const dep = (replicas: number | undefined, generation: number, status: V1Deployment['status']): V1Deployment => ({ metadata: { name: 'web', generation }, spec: { replicas, selector: {}, template: {} }, status });

describe('rolledOut', () => {
  it('needs the latest spec observed, every replica updated and ready, and no old pod left', () => {
    expect(rolledOut(dep(2, 3, { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2 }), [])).toBe(true);
    expect(rolledOut(dep(2, 3, { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2 }), [])).toBe(false);
    // A broken rollout: the old pod serves (readyReplicas == desired) beside the new, crashing one.
    expect(rolledOut(dep(1, 2, { observedGeneration: 2, replicas: 2, updatedReplicas: 1, readyReplicas: 1 }), [])).toBe(false);
    expect(rolledOut(dep(2, 1, { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 1 }), [])).toBe(false);
    expect(rolledOut(dep(undefined, 1, { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1 }), [])).toBe(true);
  });

  it('counts a Deployment scaled to 0 as done once no pod remains', () => {
    expect(rolledOut(dep(0, 2, { observedGeneration: 2 }), [])).toBe(true);
    expect(rolledOut(dep(0, 2, { observedGeneration: 2 }), [{ metadata: { name: 'web-x-0' } }])).toBe(false);
  });
});
