import { describe, expect, it } from 'vitest';
import { planRemove, planUpsert, readRecordSets, type CfRecord } from './cloudflare-records.js';

const rec = (id: string, type: string, content: string, over: Partial<CfRecord> = {}): CfRecord => ({ id, name: 'app.example.com', type, content, ttl: 60, proxied: false, comment: 'managed by denv', ...over });
const post = (type: string, content: string) => ({ name: 'app.example.com', type, content, ttl: 60, proxied: false, comment: 'managed by denv' });

describe('cloudflare records', () => {
  it('posts what is missing, deletes what is not wanted, keeps what is right', () => {
    const plan = planUpsert([rec('1', 'A', '192.0.2.1'), rec('2', 'A', '192.0.2.9'), rec('3', 'AAAA', '2001:DB8::1')], 'app.example.com', { A: ['192.0.2.1', '192.0.2.2'], AAAA: ['2001:db8::1'] }, 60);
    expect(plan).toEqual({ existed: true, batch: { deletes: [{ id: '2' }], posts: [post('A', '192.0.2.2')] } });
  });

  it('a wrong TTL, a proxied record or a duplicate is replaced', () => {
    const plan = planUpsert([rec('1', 'A', '192.0.2.1', { ttl: 1 }), rec('2', 'AAAA', '2001:db8::1', { proxied: true }), rec('3', 'A', '192.0.2.3'), rec('4', 'A', '192.0.2.3')], 'app.example.com', { A: ['192.0.2.1', '192.0.2.3'], AAAA: ['2001:db8::1'] }, 60);
    expect(plan.batch).toEqual({ deletes: [{ id: '1' }, { id: '4' }, { id: '2' }], posts: [post('A', '192.0.2.1'), post('AAAA', '2001:db8::1')] });
  });

  it('nothing to do is an empty batch; unmarked address or CNAME records are a conflict', () => {
    expect(planUpsert([rec('1', 'A', '192.0.2.1')], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60).batch).toEqual({ deletes: [], posts: [] });
    for (const type of ['A', 'AAAA', 'CNAME']) expect(() => planUpsert([rec('1', type, 'x', { comment: null })], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60)).toThrow(expect.objectContaining({ reason: 'conflict' }));
    expect(planUpsert([rec('1', 'TXT', 'x', { comment: null })], 'app.example.com', { A: ['192.0.2.1'], AAAA: [] }, 60).batch.posts).toHaveLength(1);
  });

  it('remove and read only denv’s', () => {
    const all = [rec('1', 'A', '192.0.2.1'), rec('2', 'A', '198.51.100.1', { comment: 'mine' }), rec('3', 'TXT', 'x'), rec('4', 'AAAA', '2001:db8:0::1', { name: 'b.example.com' })];
    expect(planRemove(all).batch).toEqual({ deletes: [{ id: '1' }, { id: '4' }], posts: [] });
    expect(readRecordSets(all)).toEqual([{ name: 'app.example.com', addresses: ['192.0.2.1'] }, { name: 'b.example.com', addresses: ['2001:db8::1'] }]);
  });
});
