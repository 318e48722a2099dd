/**
 * verify (seed 004, stage 2): the signature over the exact payload bytes, under the public keys
 * configured on this host — never a key sent with the request. ECDSA P-256 / SHA-256 / DER, as
 * cosign makes. Then the nonce is recorded (atomically: of two racing deliveries of one envelope,
 * one wins), so the envelope can never be used again, even after a restart. Hard gate: a failure
 * changes nothing (the nonce is recorded only once the signature holds).
 */
import { verifyPayload } from '../../../lib/envelope-crypto.js';
import { failed, ok, skipped, type Stage, type StageContext, type StageOutcome } from '../stage.js';

/** Check the signature; with `consume`, also record the nonce (deploys do, preflights do not). */
export async function verifyEnvelope(ctx: StageContext, consume: boolean): Promise<StageOutcome> {
  const { host, state } = ctx;
  const decoded = state.decoded;
  if (!decoded) return skipped('unsigned: nothing to verify (require_signature: false)');
  const keys = host.config.trustedKeys;
  if (keys.length === 0) return failed('no trusted keys are configured on this host (trusted_keys)');
  const key = verifyPayload(decoded.payloadBytes, decoded.signature, keys);
  if (!key) {
    const built = state.target?.built ? `; ${state.target.built.tag} was built here and signed with the host's build_key: put its public key among trusted_keys` : '';
    return failed(`signature does not verify under any of the ${keys.length} trusted key${keys.length > 1 ? 's' : ''} (ECDSA P-256, SHA-256, DER)${built}`);
  }
  const evidence = { key: key.fingerprint, algorithm: 'ecdsa-p256-sha256' };
  if (consume && !(await host.nonces.consume(decoded.payload.nonce, decoded.payload.expires_at))) {
    return failed(`replayed: nonce "${decoded.payload.nonce}" was already used on this host`, evidence);
  }
  return ok(undefined, evidence);
}

export const verify: Stage = { name: 'verify', onFailure: 'fail', run: (ctx) => verifyEnvelope(ctx, true) };
