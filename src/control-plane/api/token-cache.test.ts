import { describe, expect, it } from 'vitest';
import { TokenCache } from './token-cache.js';

const auth = (tokenId: string) => ({ team: 'team_a', tokenId, admin: false, scope: 'read' as const });

describe('token cache', () => {
  it('answers a remembered lookup, forgets a revoked token at once, and never outlives the token', () => {
    const cache = new TokenCache();
    expect(cache.get('h1')).toBeNull();
    cache.put('h1', auth('tok_1'), null);
    cache.put('h2', auth('tok_2'), null);
    expect(cache.get('h1')).toEqual(auth('tok_1'));
    cache.drop('tok_1');
    expect(cache.get('h1')).toBeNull();
    expect(cache.get('h2')).toEqual(auth('tok_2'));
    // A token that has expired already is not remembered past its expiry.
    cache.put('h3', auth('tok_3'), Date.now() - 1);
    expect(cache.get('h3')).toBeNull();
    cache.put('h4', auth('tok_4'), Date.now() + 60_000);
    expect(cache.get('h4')).toEqual(auth('tok_4'));
  });
});
