import { describe, expect, it } from 'vitest';
import { formatValue, summarizeEvidence } from './evidence.js';

describe('summarizeEvidence', () => {
  it('renders endpoints as service→url', () => {
    expect(summarizeEvidence({ version: 'ver_1', endpoints: [{ service: 'web', url: 'http://127.0.0.1:20001', port: 20001 }] })).toBe(
      'version=ver_1 endpoints=web→http://127.0.0.1:20001',
    );
  });

  it('joins several endpoints with commas', () => {
    const endpoints = [
      { service: 'web', url: 'http://127.0.0.1:1' },
      { service: 'api', url: 'http://127.0.0.1:2' },
    ];
    expect(summarizeEvidence({ endpoints })).toBe('endpoints=web→http://127.0.0.1:1,api→http://127.0.0.1:2');
  });

  it('is empty for null, undefined and {}', () => {
    expect(summarizeEvidence(null)).toBe('');
    expect(summarizeEvidence(undefined)).toBe('');
    expect(summarizeEvidence({})).toBe('');
  });

  it('quotes strings with spaces and escapes newlines', () => {
    expect(summarizeEvidence({ reason: 'first connected host in team' })).toBe('reason="first connected host in team"');
    expect(summarizeEvidence({ stderr: 'boom\nbang' })).toBe('stderr="boom\\nbang"');
  });

  it('prints numbers and booleans as they are and leaves out null fields', () => {
    expect(summarizeEvidence({ exit: 0, consistent: true, reward: null, frozen_for: 12.5 })).toBe('exit=0 consistent=true frozen_for=12.5');
  });

  it('puts the error first', () => {
    expect(summarizeEvidence({ cloud: null, ip: null, error: 'no connected host', took_ms: 4 })).toBe('error="no connected host" took_ms=4');
  });

  it('truncates long values with …', () => {
    const long = 'x'.repeat(100);
    const out = summarizeEvidence({ stdout: long }, { maxValue: 10 });
    expect(out).toBe(`stdout=${'x'.repeat(9)}…`);
  });

  it('truncates the whole line', () => {
    const out = summarizeEvidence({ a: 'aaaaaaaa', b: 'bbbbbbbb', c: 'cccccccc' }, { maxTotal: 15 });
    expect(out).toHaveLength(15);
    expect(out.endsWith('…')).toBe(true);
  });

  it('lists arrays of plain scalars and renders other structures as compact JSON', () => {
    expect(summarizeEvidence({ datasets: ['data', 'cache'] })).toBe('datasets=data,cache');
    expect(summarizeEvidence({ datasets: [] })).toBe('datasets=[]');
    expect(summarizeEvidence({ removed: { processes: 1, ports: 2 } })).toBe('removed={"processes":1,"ports":2}');
    expect(summarizeEvidence({ names: ['a b', 'c'] })).toBe('names=["a b","c"]');
  });

  it('skips undefined fields', () => {
    expect(summarizeEvidence({ a: 1, b: undefined })).toBe('a=1');
  });

  it('still shows null inside structures', () => {
    expect(formatValue([null, 1])).toBe('[null,1]');
  });

  it('summarizes a non-object as a bare value', () => {
    expect(summarizeEvidence('done')).toBe('done');
  });
});

describe('formatValue', () => {
  it('quotes the empty string and strings containing = or quotes', () => {
    expect(formatValue('')).toBe('""');
    expect(formatValue('a=b')).toBe('"a=b"');
    expect(formatValue('say "hi"')).toBe('"say \\"hi\\""');
  });
});
