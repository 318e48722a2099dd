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
