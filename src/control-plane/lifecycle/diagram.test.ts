import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lifecycleMermaid } from './diagram.js';

describe('docs/lifecycle.md', () => {
  it('draws exactly the transitions of the lifecycle table (regenerate: npm run docs:lifecycle)', () => {
    const doc = readFileSync(new URL('../../../docs/lifecycle.md', import.meta.url), 'utf8');
    const block = /```mermaid[\s\S]*?```/.exec(doc)?.[0];
    expect(block).toBe(lifecycleMermaid());
  });
});

describe('the lifecycle table', async () => {
  const { OUTCOMES } = await import('../operations/env-status.js');
  const { SWEEP_TRANSITIONS } = await import('./state-machine.js');
  it('lists every outcome a finished deployment can set', () => {
    for (const [kind, o] of Object.entries(OUTCOMES)) {
      for (const from of o!.from) {
        for (const to of [o!.ok, o!.failed]) {
          if (to !== from) expect(SWEEP_TRANSITIONS[from] as readonly string[], `${kind}: ${from} → ${to}`).toContain(to);
        }
      }
    }
  });
});
