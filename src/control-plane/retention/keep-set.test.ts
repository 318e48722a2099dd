import { describe, expect, it } from 'vitest';
import { decideRetention, describeReason, type RetentionInput, type RetentionVersion } from './keep-set.js';

const v = (number: number, healthy = true, snapshot: string | null = `ver_${number}`): RetentionVersion => ({ id: `ver_${number}`, number, healthy, snapshot });
const input = (over: Partial<RetentionInput>): RetentionInput => ({ versions: [], currentVersion: null, forks: [], needed: [], keepRecent: 3, ...over });
const reasons = (d: ReturnType<typeof decideRetention>) => Object.fromEntries([...d.keep].map(([id, rs]) => [id, rs.map(describeReason)]));

describe('decideRetention', () => {
  it('keeps the current version and the last N healthy versions with snapshots; prunes the rest, oldest first', () => {
    const d = decideRetention(input({ versions: [v(1), v(2), v(3, false), v(4), v(5), v(6, true, null)], currentVersion: 'ver_5', keepRecent: 2 }));
    expect(reasons(d)).toEqual({ ver_5: ['current', 'recent healthy (1 of 2)'], ver_4: ['recent healthy (2 of 2)'] });
    expect(d.prune).toEqual(['ver_1', 'ver_2', 'ver_3', 'ver_6']);
  });

  it('keeps the current version even when it is old (after a rollback), and with N = 0 only it', () => {
    const d = decideRetention(input({ versions: [v(1), v(2), v(3)], currentVersion: 'ver_1', keepRecent: 0 }));
    expect(reasons(d)).toEqual({ ver_1: ['current'] });
    expect(d.prune).toEqual(['ver_2', 'ver_3']);
  });

  it('keeps what a live fork was made from and what an unfinished operation needs', () => {
    const d = decideRetention(input({
      versions: [v(1), v(2), v(3), v(4)],
      currentVersion: 'ver_4',
      keepRecent: 1,
      forks: [{ env: 'env_f', name: 'data-fork', parentVersion: 'ver_2' }],
      needed: [{ version: 'ver_1', deployment: 'dep_r', kind: 'rollback' }],
    }));
    expect(reasons(d)).toEqual({
      ver_4: ['current', 'recent healthy (1 of 1)'],
      ver_2: ['needed by fork data-fork (env_f)'],
      ver_1: ['needed by rollback dep_r'],
    });
    expect(d.prune).toEqual(['ver_3']);
  });

  it('ignores versions of other envs (a fork\'s current version is its source\'s)', () => {
    const d = decideRetention(input({ versions: [v(1)], currentVersion: 'ver_other', forks: [{ env: 'env_g', name: 'g', parentVersion: 'ver_x' }], keepRecent: 0 }));
    expect(d.keep.size).toBe(0);
    expect(d.prune).toEqual(['ver_1']);
  });

  it('keeps nothing and prunes nothing for an env without versions', () => {
    expect(decideRetention(input({}))).toEqual({ keep: new Map(), prune: [] });
  });
});
