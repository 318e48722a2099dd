import { describe, expect, it } from 'vitest';
import { DNS_1035_LABEL, kubeName, LABEL_VALUE, labelName, labelValue } from './kube-names.js';

describe('kube names', () => {
  it('kubeName: unchanged when valid; otherwise sanitised with a hash of the original, distinct, ≤63, starting with a letter', () => {
    expect(kubeName('prod', 'web')).toBe('prod-web');
    const a = kubeName('prod', 'web_1');
    const b = kubeName('prod', 'Web-1');
    expect(a).toMatch(/^prod-web-1-[0-9a-f]{6}$/);
    expect(b).toMatch(/^prod-web-1-[0-9a-f]{6}$/);
    expect(a).not.toBe(b);
    expect(kubeName('prod', 'web-1')).toBe('prod-web-1');
    expect(kubeName('2024', 'api')).toMatch(/^d-2024-api-[0-9a-f]{6}$/);
    const long = kubeName('a'.repeat(40), 'b'.repeat(40));
    expect(long.length).toBe(63);
    expect(long).toMatch(DNS_1035_LABEL);
    expect(kubeName('a'.repeat(40), 'b'.repeat(40))).toBe(long);
    expect(kubeName('___')).toMatch(/^d-[0-9a-f]{6}$/);
  });

  it('labelValue and labelName: valid input unchanged, the rest made valid', () => {
    expect(labelValue('Feature_X.2')).toBe('Feature_X.2');
    expect(labelValue('my env!')).toMatch(/^my-env-[0-9a-f]{6}$/);
    expect(labelValue('x'.repeat(70))).toMatch(LABEL_VALUE);
    expect(labelValue('x'.repeat(70)).length).toBe(63);
    expect(labelName('db')).toBe('db');
    expect(labelName('db_primary')).toMatch(/^db-primary-[0-9a-f]{6}$/);
  });
});
