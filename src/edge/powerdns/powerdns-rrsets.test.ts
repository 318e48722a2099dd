import { describe, expect, it } from 'vitest';
import { planRemove, planUpsert, readRecordSets, type PdnsRRSet } from './powerdns-rrsets.js';

const ours = (type: string, contents: string[], ttl = 60): PdnsRRSet => ({ name: 'app.example.com.', type, ttl, records: contents.map((content) => ({ content, disabled: false })), comments: [{ content: 'managed by denv', account: 'denv', modified_at: 1 }] });
const mark = [{ content: 'managed by denv', account: 'denv' }];

describe('powerdns rrsets', () => {
  it('a new name: REPLACE per family, marked, in one PATCH body', () => {
    expect(planUpsert([], 'app.example.com', { A: ['192.0.2.1'], AAAA: ['2001:db8::1'] }, 60)).toEqual({
      existed: false,
      changes: [
        { name: 'app.example.com.', type: 'A', changetype: 'REPLACE', ttl: 60, records: [{ content: '192.0.2.1', disabled: false }], comments: mark },
        { name: 'app.example.com.', type: 'AAAA', changetype: 'REPLACE', ttl: 60, records: [{ content: '2001:db8::1', disabled: false }], comments: mark },
      ],
    });
  });

  it('already right: nothing; a family no longer wanted: DELETE; another TTL: REPLACE', () => {
    expect(planUpsert([ours('A', ['192.0.2.2', '192.0.2.1'])], 'app.example.com', { A: ['192.0.2.1', '192.0.2.2'], AAAA: [] }, 60)).toEqual({ existed: true, changes: [] });
    expect(planUpsert([ours('A', ['192.0.2.1']), ours('AAAA', ['2001:db8::1'])], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60).changes).toEqual([{ name: 'app.example.com.', type: 'AAAA', changetype: 'DELETE' }]);
    expect(planUpsert([ours('A', ['192.0.2.1'], 300)], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60).changes).toHaveLength(1);
  });

  it('an unmarked A, AAAA or CNAME at the name is a conflict; other types and names are not', () => {
    for (const type of ['A', 'AAAA', 'CNAME']) {
      expect(() => planUpsert([{ name: 'app.example.com.', type, records: [{ content: 'x', disabled: false }] }], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60)).toThrow(expect.objectContaining({ reason: 'conflict' }));
    }
    const others: PdnsRRSet[] = [
      { name: 'app.example.com.', type: 'TXT', records: [{ content: '"v=spf1"', disabled: false }] },
      { name: 'other.example.com.', type: 'A', records: [{ content: '198.51.100.1', disabled: false }] },
    ];
    expect(planUpsert(others, 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60).changes).toHaveLength(1);
  });

  it('remove and read touch only denv’s rrsets', () => {
    const zone: PdnsRRSet[] = [ours('A', ['192.0.2.1']), { name: 'app.example.com.', type: 'TXT', records: [{ content: '"x"', disabled: false }] }, { name: 'mail.example.com.', type: 'A', records: [{ content: '198.51.100.1', disabled: false }] }];
    expect(planRemove(zone, 'app.example.com')).toEqual({ existed: true, changes: [{ name: 'app.example.com.', type: 'A', changetype: 'DELETE' }] });
    expect(planRemove(zone, 'mail.example.com')).toEqual({ existed: false, changes: [] });
    expect(readRecordSets([...zone, ours('AAAA', ['2001:db8::1'])])).toEqual([{ name: 'app.example.com', addresses: ['192.0.2.1', '2001:db8::1'] }]);
  });
});
