/**
 * The GitHub Action's pure parts: its pass/fail rule, its inputs and the payload it signs (which
 * must pass the agent's closed schema). It is run against a real agent in docker-standalone.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeEnvelope, TERMINAL_STATES } from '../src/contracts/envelope.js';
import { loadTrustedKey, verifyPayload } from '../src/lib/envelope-crypto.js';
import { buildPayload, durationMs, passes, signEnvelope } from '../action/index.mjs';
import { testKey } from './helpers/envelopes.js';

const DIGEST = `sha256:${'c'.repeat(64)}`;

describe('GitHub Action', () => {
  it('passes on success, no_op, success_degraded and preflight_ok; strict fails success_degraded', () => {
    const lenient = Object.fromEntries(TERMINAL_STATES.map((s) => [s, passes(s, false)]));
    expect(lenient).toEqual({ success: true, no_op: true, success_degraded: true, failure_rolled_back: false, failure: false, preflight_ok: true });
    expect(passes('success_degraded', true)).toBe(false);
    expect(passes('success', true)).toBe(true);
  });

  it('signs a payload the agent decodes and verifies', () => {
    const key = testKey();
    const env = {
      INPUT_IMAGE: `127.0.0.1:5000/team/web@${DIGEST}`,
      INPUT_SERVICE: 'web',
      INPUT_HOST: 'host-a',
      INPUT_ENV: 'A=1\n# comment\nB=two words\n',
      'INPUT_HEALTH-PATH': '/healthz',
      'INPUT_HEALTH-TIMEOUT': '20s',
      INPUT_HOSTNAMES: 'app.example.com, www.example.com',
      'INPUT_EXPIRES-IN': '5m',
    };
    const payload = buildPayload(env, Date.parse('2030-01-01T00:00:00Z'), 'nonce-1');
    expect(payload).toEqual({
      service: 'web',
      repository: '127.0.0.1:5000/team/web',
      digest: DIGEST,
      host: 'host-a',
      expires_at: '2030-01-01T00:05:00.000Z',
      nonce: 'nonce-1',
      env: { A: '1', B: 'two words' },
      health: { path: '/healthz', timeout: '20s' },
      edge: { hostnames: ['app.example.com', 'www.example.com'] },
    });
    const decoded = decodeEnvelope(signEnvelope(payload, key.privatePem));
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(verifyPayload(decoded.value.payloadBytes, decoded.value.signature, [loadTrustedKey(key.publicPem, 'k')])).not.toBeNull();
    expect(() => buildPayload({ ...env, INPUT_IMAGE: '127.0.0.1:5000/team/web:latest' })).toThrow(/a digest, not a tag/);
    expect(() => signEnvelope(payload, testKey('secp384r1').privatePem)).toThrow(/P-256/);
    expect(durationMs('1m30s')).toBe(90_000);
  });

  it('declares its inputs and a Node 20 runtime', () => {
    const action = parse(readFileSync(new URL('../action.yml', import.meta.url), 'utf8'));
    expect(action.runs).toEqual({ using: 'node20', main: 'action/index.mjs' });
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['agent-url', 'key', 'image', 'service', 'host', 'strict', 'mode', 'env']));
    expect(action.inputs.strict.default).toBe('false');
  });
});
