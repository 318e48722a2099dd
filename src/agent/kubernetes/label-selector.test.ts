import { describe, expect, it } from 'vitest';
import { labelSelector } from './label-selector.js';

describe('labelSelector', () => {
  it('joins matchLabels and matchExpressions as the API reads them', () => {
    expect(
      labelSelector({
        matchLabels: { 'denv.dev/env': 'shop', app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'canary', operator: 'NotIn', values: ['true'] },
          { key: 'team', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('denv.dev/env=shop,app=web,tier in (a,b),canary notin (true),team,!legacy');
  });

  it('refuses an empty selector, which would select every pod', () => {
    expect(() => labelSelector({})).toThrow('empty selector');
    expect(() => labelSelector(undefined)).toThrow('empty selector');
  });
});
