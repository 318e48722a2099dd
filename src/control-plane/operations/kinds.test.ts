import { describe, expect, it } from 'vitest';
import { KIND_PHASES } from '../../contracts/domain.js';
import { DenvError } from '../../contracts/errors.js';
import { assertKindOnTarget, TARGET_KIND_DEFS } from './kinds.js';

describe('phase registry', () => {
  it('lists every registered kind of every target with exactly the phases of contracts/domain.ts, in order', () => {
    for (const [target, defs] of Object.entries(TARGET_KIND_DEFS)) {
      for (const [kind, phases] of Object.entries(defs)) {
        expect(phases!.map((d) => d.name), `${target} ${kind}`).toEqual([...KIND_PHASES[kind as keyof typeof KIND_PHASES]]);
      }
    }
  });

  it('ends every kind with verdict', () => {
    for (const phases of Object.values(KIND_PHASES)) expect(phases[phases.length - 1]).toBe('verdict');
  });

  it('runs the lifecycle kinds on a cluster and refuses the ones that need datasets on a host', () => {
    expect(Object.keys(TARGET_KIND_DEFS.kubernetes).sort()).toEqual(['deploy', 'destroy', 'separate', 'start', 'stop']);
    for (const kind of ['fork', 'snapshot', 'verify', 'rollback', 'move'] as const) {
      let err: unknown;
      try {
        assertKindOnTarget(kind, 'kubernetes', 'shop');
      } catch (e) {
        err = e;
      }
      expect(err, kind).toBeInstanceOf(DenvError);
      expect((err as DenvError).code).toBe('CONFLICT');
      expect((err as Error).message).toBe(`${kind} is not available for env shop: it needs datasets on a host, and this env runs on a Kubernetes cluster (its data is in PersistentVolumeClaims)`);
    }
    expect(() => assertKindOnTarget('fork', 'host', 'shop')).not.toThrow();
  });
});
