/** Keys and envelopes for tests: real ECDSA keys, real signatures (node:crypto, as denv sign and openssl make them). */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { Envelope } from '../../src/contracts/envelope.js';

export interface TestKey {
  readonly privatePem: string;
  readonly publicPem: string;
}

export function testKey(curve: 'prime256v1' | 'secp384r1' = 'prime256v1'): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

export interface PayloadInput {
  readonly service: string;
  readonly repository: string;
  readonly digest: string;
  readonly host: string;
  readonly env?: Record<string, string>;
  readonly health?: { path: string; timeout?: string };
  readonly expires_at?: string;
  readonly nonce?: string;
  readonly [extra: string]: unknown;
}

/** The payload with a fresh nonce and a 10-minute expiry unless given. */
export function payloadOf(p: PayloadInput): Record<string, unknown> {
  return { expires_at: new Date(Date.now() + 600_000).toISOString(), nonce: randomUUID(), ...p };
}

/** `{payload, signature}` over the JSON bytes of `payload`; `raw` makes an r‖s (P1363) signature instead of DER. */
export function envelopeOf(payload: Record<string, unknown> | string, key: TestKey, o: { raw?: boolean } = {}): Envelope {
  const bytes = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  const signature = sign('sha256', bytes, { key: key.privatePem, dsaEncoding: o.raw ? 'ieee-p1363' : 'der' });
  return { payload: bytes.toString('base64'), signature: signature.toString('base64') };
}
