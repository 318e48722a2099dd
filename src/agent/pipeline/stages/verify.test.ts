/**
 * verify (seed 004 stage 2) on its own: the signature under the host's own trusted keys, then the
 * nonce recorded (deploys) or only looked up (preflight). Real keys, a real nonce record.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeEnvelope, type DecodedEnvelope } from '../../../contracts/envelope.js';
import { loadTrustedKey, type TrustedKey } from '../../../lib/envelope-crypto.js';
import { NonceStore } from '../../envelope/nonce-store.js';
import type { PipelineHost } from '../pipeline-host.js';
import type { RunState, StageContext } from '../stage.js';
import { verify, verifyEnvelope } from './verify.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyPair = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const signer = keyPair();
const trusted = (k: ReturnType<typeof keyPair>, name: string): TrustedKey => loadTrustedKey(k.publicKey.export({ type: 'spki', format: 'pem' }) as string, name);

function decoded(nonce = randomUUID()): DecodedEnvelope {
  const bytes = Buffer.from(JSON.stringify({ service: 'web', repository: 'reg/web', digest: `sha256:${'a'.repeat(64)}`, host: 'h1', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce }));
  const res = decodeEnvelope({ payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key: signer.privateKey, dsaEncoding: 'der' }).toString('base64') });
  if (!res.ok) throw new Error(res.message);
  return res.value;
}

/** Only what verify reads: the host's trusted keys and its nonce record, and the run's decoded envelope. */
function ctx(keys: readonly TrustedKey[], env: DecodedEnvelope | null, nonces: NonceStore): StageContext {
  const host = { config: { trustedKeys: keys }, nonces } as unknown as PipelineHost;
  return { host, req: {} as StageContext['req'], state: { decoded: env } as RunState };
}

describe('verify', () => {
  const nonces = new NonceStore(dir);

  it('passes a signature under a trusted key, names the key in evidence, and records the nonce (deploys only)', async () => {
    const key = trusted(signer, 'ci.pub');
    const env = decoded();
    const preflight = await verifyEnvelope(ctx([trusted(keyPair(), 'other.pub'), key], env, nonces), false);
    expect(preflight).toEqual({ status: 'ok', evidence: { key: key.fingerprint, algorithm: 'ecdsa-p256-sha256' } });
    expect(await nonces.seen(env.payload.nonce)).toBe(false);
    expect(await verify.run(ctx([key], env, nonces))).toEqual({ status: 'ok', evidence: { key: key.fingerprint, algorithm: 'ecdsa-p256-sha256' } });
    expect(await nonces.seen(env.payload.nonce)).toBe(true);
    // Delivered again: the signature holds, the nonce does not.
    expect(await verify.run(ctx([key], env, nonces))).toEqual({
      status: 'failed',
      detail: `replayed: nonce "${env.payload.nonce}" was already used on this host`,
      evidence: { key: key.fingerprint, algorithm: 'ecdsa-p256-sha256' },
    });
  });

  it('fails under keys that did not sign (saying how many), and with no trusted key at all; the nonce stays unrecorded', async () => {
    const env = decoded();
    expect(await verify.run(ctx([trusted(keyPair(), 'a.pub')], env, nonces))).toMatchObject({
      status: 'failed',
      detail: 'signature does not verify under any of the 1 trusted key (ECDSA P-256, SHA-256, DER)',
    });
    expect(await verify.run(ctx([trusted(keyPair(), 'a.pub'), trusted(keyPair(), 'b.pub')], env, nonces))).toMatchObject({
      status: 'failed',
      detail: 'signature does not verify under any of the 2 trusted keys (ECDSA P-256, SHA-256, DER)',
    });
    expect(await verify.run(ctx([], env, nonces))).toEqual({ status: 'failed', detail: 'no trusted keys are configured on this host (trusted_keys)' });
    expect(await nonces.seen(env.payload.nonce)).toBe(false);
  });

  it('skips an unsigned deploy (admit let it through on a host that does not require signatures)', async () => {
    expect(await verify.run(ctx([trusted(signer, 'ci.pub')], null, nonces))).toEqual({ status: 'skipped', detail: 'unsigned: nothing to verify (require_signature: false)' });
  });
});
