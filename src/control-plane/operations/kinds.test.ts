import { describe, expect, it } from 'vitest';
import { KIND_PHASES } from '../../contracts/domain.js';
import { KIND_DEFS } from './kinds.js';

describe('phase registry', () => {
  it('lists every registered kind with exactly the phases of contracts/domain.ts, in order', () => {
    for (const [kind, defs] of Object.entries(KIND_DEFS)) {
      expect(defs!.map((d) => d.name), kind).toEqual([...KIND_PHASES[kind as keyof typeof KIND_PHASES]]);
    }
  });

  it('ends every kind with verdict', () => {
    for (const phases of Object.values(KIND_PHASES)) expect(phases[phases.length - 1]).toBe('verdict');
  });
});
