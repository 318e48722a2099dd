/**
 * The signature scheme against OpenSSL itself: what `openssl dgst -sha256 -sign` (and so
 * `cosign sign-blob --key`) makes verifies here, and what we make verifies under openssl.
 */
import { createHash, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, runOrThrow } from './exec.js';
import { loadSigningKey, loadTrustedKey, makeEnvelope, signPayload, verifyPayload } from './envelope-crypto.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-crypto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function p256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

describe('envelope signatures', () => {
  const bytes = Buffer.from('{"service":"web","nonce":"x"}');

  it('verifies an openssl-made signature (SEC1 key from ecparam) and openssl verifies ours', async () => {
    const keyFile = join(dir, 'key.pem');
    await runOrThrow(['openssl', 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
    const pubFile = join(dir, 'key.pub');
    await runOrThrow(['openssl', 'ec', '-in', keyFile, '-pubout', '-out', pubFile]);
    writeFileSync(join(dir, 'payload'), bytes);
    const sigFile = join(dir, 'payload.sig');
    await runOrThrow(['openssl', 'dgst', '-sha256', '-sign', keyFile, '-out', sigFile, join(dir, 'payload')]);
    const trusted = loadTrustedKey(readFileSync(pubFile, 'utf8'), pubFile);
    expect(verifyPayload(bytes, readFileSync(sigFile), [trusted])).toBe(trusted);

    const ours = signPayload(bytes, loadSigningKey(readFileSync(keyFile, 'utf8')));
    writeFileSync(sigFile, ours);
    const check = await run(['openssl', 'dgst', '-sha256', '-verify', pubFile, '-signature', sigFile, join(dir, 'payload')]);
    expect(check.stdout.trim()).toBe('Verified OK');
  });

  it('refuses a flipped byte, another key, a raw r‖s signature and keys on other curves', () => {
    const a = p256();
    const b = p256();
    const trusted = [loadTrustedKey(a.publicPem, 'a.pub')];
    const env = makeEnvelope(bytes, loadSigningKey(a.privatePem));
    const sig = Buffer.from(env.signature, 'base64');
    expect(verifyPayload(bytes, sig, trusted)).not.toBeNull();
    const flipped = Buffer.from(bytes);
    flipped[3]! ^= 1;
    expect(verifyPayload(flipped, sig, trusted)).toBeNull();
    const badSig = Buffer.from(sig);
    badSig[badSig.length - 1]! ^= 1;
    expect(verifyPayload(bytes, badSig, trusted)).toBeNull();
    expect(verifyPayload(bytes, signPayload(bytes, loadSigningKey(b.privatePem)), trusted)).toBeNull();
    const raw = sign('sha256', bytes, { key: a.privatePem, dsaEncoding: 'ieee-p1363' });
    expect(raw).toHaveLength(64);
    expect(verifyPayload(bytes, raw, trusted)).toBeNull();

    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    expect(() => loadTrustedKey(p384.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'p384.pub')).toThrow(/expected an ECDSA P-256 \(prime256v1\) key, got EC secp384r1/);
    expect(() => loadSigningKey(p384.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)).toThrow(/P-256/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => loadTrustedKey(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'rsa.pub')).toThrow(/got rsa/);
    expect(() => loadTrustedKey('garbage', 'x.pub')).toThrow(/not a PEM public key/);
  });

  it('names a key by the first 16 hex digits of its SPKI digest, and says which key file it refuses and why', () => {
    const a = p256();
    const trusted = loadTrustedKey(a.publicPem, 'a.pub');
    const der = createPublicKey(a.publicPem).export({ type: 'spki', format: 'der' });
    expect(trusted.fingerprint).toBe(`sha256:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`);
    // The private key names the same public half.
    expect(loadTrustedKey(a.privatePem, 'a.pem').fingerprint).toBe(trusted.fingerprint);
    expect(() => loadSigningKey('garbage')).toThrow(/^key: not a PEM private key \(/);
    expect(() => loadSigningKey('garbage', 'ci.pem')).toThrow(/^ci\.pem: not a PEM private key \(/);
    const ed = generateKeyPairSync('ed25519');
    expect(() => loadSigningKey(ed.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'ed.pem')).toThrow('ed.pem: expected an ECDSA P-256 (prime256v1) key, got ed25519');
    expect(() => loadTrustedKey(ed.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'ed.pub')).toThrow('ed.pub: expected an ECDSA P-256 (prime256v1) key, got ed25519');
  });
});
