/**
 * admitProcess on a real agent context (temp data dir, real trusted key, nonce record and admitted
 * record): what a host with `process_runtime: signed` lets start, in order of its checks, and that
 * an admitted spec starts again in its env without a new envelope. The pure Compose⇄envelope
 * comparison (processMismatch) has its own tests (admit-process.test.ts).
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceSpec } from '../../contracts/spec.js';
import { loadTrustedKey } from '../../lib/envelope-crypto.js';
import type { AgentConfig } from '../config/agent-config.js';
import type { AgentContext } from '../context.js';
import { ServiceIdentities } from '../identity/service-identities.js';
import { openPipelineHost } from '../pipeline/pipeline-host.js';
import { PortRegistry } from '../ports.js';
import { makeFixture, type Fixture } from '../testing/fixture.js';
import { admitProcess, refuseUnsignedCommand, specDigest } from './admit-process.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const spec: ServiceSpec = {
  image: null, command: ['node', '/srv/app.js'], entrypoint: null, environment: { A: '1' }, working_dir: '/srv', ports: [], volumes: [],
  health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 1000 }, user: 'app',
};

function envelope(extra: Record<string, unknown> = {}, key = privateKey) {
  const payload = { service: 'api', host: 'h1', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce: randomUUID(), env: { A: '1' }, process: { command: ['node', '/srv/app.js'], working_dir: '/srv', user: 'app' }, ...extra };
  const bytes = Buffer.from(JSON.stringify(payload));
  return { payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key, dsaEncoding: 'der' }).toString('base64') };
}

let fx: Fixture;
/** A context whose host runs process services only when signed (`keys`: its trusted keys). */
async function signedHost(keys = [loadTrustedKey(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'ci.pub')]): Promise<AgentContext> {
  const config: AgentConfig = {
    name: 'h1', trustedKeys: keys, allow: { repositories: [], services: ['api'], paths: [], publishedPorts: [] }, listen: null, datasets: null,
    requireSignature: true, network: 'host', envDir: `${fx.dataDir}/env-files`, workloads: null, processRuntime: 'signed', runAsRoot: true, logMaxBytes: null, publicIp: null, proxyBind: null, edge: { proxy: null, dns: null, tls: 'auto' },
  };
  const pipeline = await openPipelineHost({ dataDir: `${fx.dataDir}/h-${randomUUID()}`, config, ports: new PortRegistry(fx.dataDir, { min: 27100, max: 27109 }), log: () => {}, docker: null });
  return { ...fx.ctx, identities: new ServiceIdentities(fx.dataDir, { processRuntime: 'signed', runAsRoot: true, allowPaths: ['/'] }, false), pipeline };
}

beforeAll(async () => {
  fx = await makeFixture({ min: 27100, max: 27109 });
});
afterAll(async () => {
  await fx?.cleanup();
});

describe('admitProcess', () => {
  it('lets anything start on a host whose process runtime is not `signed`', async () => {
    expect(await admitProcess(fx.ctx, { env: 'env_a', service: 'api', spec, envelopes: [] })).toBeNull();
  });

  it('admits a spec an envelope signs: the nonce is consumed, the spec recorded, and it starts again in that env (only) without one', async () => {
    const ctx = await signedHost();
    const env = envelope();
    const nonce = JSON.parse(Buffer.from(env.payload, 'base64').toString()).nonce as string;
    // The envelope for another service is not taken for this one.
    expect(await admitProcess(ctx, { env: 'env_a', service: 'api', spec, envelopes: [envelope({ service: 'worker' }), env] })).toBeNull();
    expect(await ctx.pipeline!.nonces.seen(nonce)).toBe(true);
    expect(await ctx.pipeline!.admitted.has('env_a', specDigest('api', spec))).toBe(true);
    expect(fx.log.at(-1)).toMatch(new RegExp(`^env env_a: process service api admitted \\(signed by sha256:[0-9a-f]{16}, nonce ${nonce}\\)$`));
    expect(await admitProcess(ctx, { env: 'env_a', service: 'api', spec, envelopes: [] })).toBeNull();
    expect(await admitProcess(ctx, { env: 'env_b', service: 'api', spec, envelopes: [] })).toMatch(/^no envelope: this host runs process services only when signed/);
    // The same envelope again: a replay.
    expect(await admitProcess(ctx, { env: 'env_c', service: 'api', spec, envelopes: [env] })).toBe(`replayed: nonce "${nonce}" was already used on this host`);
  });

  it.each([
    ['no envelope for the service', [envelope({ service: 'worker' })], 'no envelope: this host runs process services only when signed (process_runtime: signed); sign one with `process` for service api (docs/envelope.md)'],
    ['an envelope that does not decode', [{ payload: Buffer.from('{"service":"api"}').toString('base64'), signature: '!' }], /^envelope: signature: expected canonical base64/],
    ['an envelope for another host', [envelope({ host: 'h2' })], 'envelope is for host "h2", this host is "h1"'],
    ['an image envelope', [envelope({ process: undefined, repository: 'reg/api', digest: `sha256:${'a'.repeat(64)}` })], 'envelope signs an image (repository reg/api); a process service needs an envelope with `process`'],
    ['a spec other than the signed one', [envelope({ env: { A: '2' } })], 'environment A: the Compose file and the envelope\'s env differ'],
    ['a signature by a key the host does not trust', [envelope({}, generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey)], 'signature does not verify under any of the 1 trusted key (ECDSA P-256, SHA-256, DER)'],
  ])('refuses %s, consuming and recording nothing', async (_what, envelopes, reason) => {
    const ctx = await signedHost();
    const res = await admitProcess(ctx, { env: 'env_r', service: 'api', spec, envelopes });
    if (typeof reason === 'string') expect(res).toBe(reason);
    else expect(res).toMatch(reason);
    expect(await ctx.pipeline!.admitted.has('env_r', specDigest('api', spec))).toBe(false);
    for (const e of envelopes) {
      const nonce = (() => {
        try {
          return JSON.parse(Buffer.from(e.payload, 'base64').toString()).nonce as string | undefined;
        } catch {
          return undefined;
        }
      })();
      if (nonce) expect(await ctx.pipeline!.nonces.seen(nonce)).toBe(false);
    }
  });

  it('refuses on a host without trusted keys, and on a signed host without envelope checks', async () => {
    expect(await admitProcess(await signedHost([]), { env: 'env_k', service: 'api', spec, envelopes: [envelope()] })).toBe('no trusted keys are configured on this host (trusted_keys)');
    const noPipeline: AgentContext = { ...fx.ctx, identities: new ServiceIdentities(fx.dataDir, { processRuntime: 'signed', runAsRoot: true, allowPaths: ['/'] }, false) };
    expect(await admitProcess(noPipeline, { env: 'env_k', service: 'api', spec, envelopes: [envelope()] })).toBe('this host runs process services only when signed (process_runtime: signed) and has no envelope checks configured');
  });
});

describe('refuseUnsignedCommand', () => {
  it('refuses a command no envelope signs on a signed host only', async () => {
    expect(() => refuseUnsignedCommand(fx.ctx, 'env.exec')).not.toThrow();
    expect(() => refuseUnsignedCommand({ ...fx.ctx, identities: new ServiceIdentities(fx.dataDir, { processRuntime: 'signed', runAsRoot: true, allowPaths: ['/'] }, false) }, 'env.exec')).toThrow(
      'env.exec: refused: this host runs only signed commands (process_runtime: signed), and env.exec runs one no envelope signs',
    );
  });
});
