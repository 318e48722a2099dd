/**
 * Token lookups remembered for a moment, on the embedded store only (issue 11: every API request
 * was a token lookup and a query, two trips through the one PGlite connection that 30 concurrent
 * deploys keep busy). The embedded store has exactly one control plane (the data dir's lock), and
 * every revocation goes through it, so revoking drops the token here at once: a revoked token is
 * still refused from its next request. An entry lives 2 s at most, and never past the token's own
 * expiry. On PostgreSQL (replicas, each with its own memory) there is no cache: every request reads.
 */
import type { Auth } from './route.js';

const TTL_MS = 2000;
/** More live tokens than this at once: start again rather than grow. */
const MAX_ENTRIES = 10_000;

export class TokenCache {
  private readonly entries = new Map<string, { readonly auth: Auth; readonly until: number }>();

  /** The token whose secret hashes to `hash`, if it was looked up in the last moments. */
  get(hash: string): Auth | null {
    const hit = this.entries.get(hash);
    if (!hit) return null;
    if (Date.now() >= hit.until) {
      this.entries.delete(hash);
      return null;
    }
    return hit.auth;
  }

  /** Remember a lookup; `expiresAt` (ms) is the token's own expiry, null when it has none. */
  put(hash: string, auth: Auth, expiresAt: number | null): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { auth, until: Math.min(Date.now() + TTL_MS, expiresAt ?? Infinity) });
  }

  /** A token was revoked: forget it now. */
  drop(tokenId: string): void {
    for (const [hash, hit] of this.entries) if (hit.auth.tokenId === tokenId) this.entries.delete(hash);
  }
}
