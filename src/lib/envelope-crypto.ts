/**
 * The envelope's signature scheme, cosign-compatible: ECDSA on P-256 over SHA-256 of the exact
 * payload bytes, the signature DER-encoded — what `cosign sign-blob --key` and
 * `openssl dgst -sha256 -sign key.pem` produce. Nothing else is accepted: a key on another curve
 * is refused when it is loaded, and a raw r‖s (IEEE P1363) signature does not verify because the
 * verifier is told to expect DER.
 *
 * Used by the agent (verify), `denv sign`, the bench and the tests; the GitHub Action carries its
 * own copy of `signPayload` (it must run without this package) and is tested against the agent.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { DenvError } from '../contracts/errors.js';
import type { Envelope } from '../contracts/envelope.js';

export interface TrustedKey {
  readonly key: KeyObject;
  /** `sha256:<first 16 hex of the SPKI DER digest>`: names the key in evidence without revealing anything. */
  readonly fingerprint: string;
  /** Where it came from (a path), for messages. */
  readonly source: string;
}

function assertP256(key: KeyObject, what: string): void {
  const curve = key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : undefined;
  if (curve !== 'prime256v1') {
    const got = key.asymmetricKeyType === 'ec' ? `EC ${curve ?? 'unknown curve'}` : (key.asymmetricKeyType ?? 'unknown');
    throw new DenvError('BAD_REQUEST', `${what}: expected an ECDSA P-256 (prime256v1) key, got ${got}`);
  }
}

export function fingerprintOf(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

/** A PEM public key (or a private key, whose public half is used) on P-256; throws BAD_REQUEST otherwise. */
export function loadTrustedKey(pem: string, source: string): TrustedKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new DenvError('BAD_REQUEST', `${source}: not a PEM public key (${(err as Error).message})`);
  }
  assertP256(key, source);
  return { key, fingerprint: fingerprintOf(key), source };
}

/** A PEM private key on P-256 (SEC1 `EC PRIVATE KEY` as openssl writes it, or PKCS#8); throws BAD_REQUEST otherwise. */
export function loadSigningKey(pem: string, source = 'key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new DenvError('BAD_REQUEST', `${source}: not a PEM private key (${(err as Error).message})`);
  }
  assertP256(key, source);
  return key;
}

/** DER ECDSA P-256 signature of SHA-256(payload). */
export function signPayload(payload: Uint8Array, key: KeyObject): Buffer {
  return sign('sha256', payload, { key, dsaEncoding: 'der' });
}

/** An envelope around exactly `payload` (its bytes are what is signed). */
export function makeEnvelope(payload: Uint8Array, key: KeyObject): Envelope {
  return { payload: Buffer.from(payload).toString('base64'), signature: signPayload(payload, key).toString('base64') };
}

/** The first trusted key the DER signature verifies under, or null. Never throws on a malformed signature. */
export function verifyPayload(payload: Uint8Array, signature: Uint8Array, keys: readonly TrustedKey[]): TrustedKey | null {
  for (const trusted of keys) {
    try {
      if (verify('sha256', payload, { key: trusted.key, dsaEncoding: 'der' }, signature)) return trusted;
    } catch {
      // A signature that is not DER at all: it verifies under no key.
    }
  }
  return null;
}
