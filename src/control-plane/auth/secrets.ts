import { createHash } from 'node:crypto';

/** Secrets (API tokens, host credentials, enrollment keys) are stored as SHA-256 hex; they are
 *  random 192-bit values, so a fast hash is enough and lookups stay indexed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
