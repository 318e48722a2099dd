import { describe, expect, it } from 'vitest';
import { SealedValues } from './sealed-values.js';

describe('SealedValues', () => {
  it('gives each distinct value one token, numbered in the order first sealed', () => {
    const s = new SealedValues();
    expect([s.seal('hunter2'), s.seal(''), s.seal('hunter2'), s.seal('postgres://db:5432')]).toEqual(['denv:value:1', 'denv:value:2', 'denv:value:1', 'denv:value:3']);
  });

  it('restores every string that is exactly a token, anywhere, and leaves the input unchanged', () => {
    const s = new SealedValues();
    const [a, b] = [s.seal('hunter2'), s.seal('')];
    const docs = [{ kind: 'ConfigMap', metadata: { name: 'c' }, data: { A: a, B: b, C: 'plain' } }, { list: [a, 1, null, true] }];
    const copy = structuredClone(docs);
    expect(s.unseal(docs)).toEqual({ docs: [{ kind: 'ConfigMap', metadata: { name: 'c' }, data: { A: 'hunter2', B: '', C: 'plain' } }, { list: ['hunter2', 1, null, true] }], problems: [] });
    expect(docs).toEqual(copy);
  });

  it('names a string that holds a token without being one, and a token it never gave', () => {
    const s = new SealedValues();
    s.seal('hunter2');
    const { problems } = s.unseal([{ kind: 'Deployment', metadata: { name: 'web' }, spec: { a: 'x denv:value:1', b: 'denv:value:7' } }]);
    expect(problems).toEqual([
      'document 1 (Deployment web).spec.a: "x denv:value:1" alters a value denv fills in: copy each denv:value:N token exactly, as the whole value',
      'document 1 (Deployment web).spec.b: "denv:value:7" alters a value denv fills in: copy each denv:value:N token exactly, as the whole value',
    ]);
  });
});
