/**
 * The runner on a host without a docker runtime (real config, keys, nonce record and stores on a
 * temp data dir): hard gates end in `failure` with every later stage skipped and a reason, a
 * preflight leaves the nonce unrecorded, a deploy records it, and nothing else is written.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTrustedKey } from '../../lib/envelope-crypto.js';
import type { AgentConfig } from '../config/agent-config.js';
import { PortRegistry } from '../ports.js';
import { openPipelineHost, type PipelineHost } from './pipeline-host.js';
import { runPipeline } from './run-pipeline.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-pipeline-'));
const envDir = mkdtempSync('/dev/shm/denv-pipeline-env-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(envDir, { recursive: true, force: true });
});
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
let host: PipelineHost;

beforeAll(async () => {
  const config: AgentConfig = {
    name: 'h1',
    trustedKeys: [loadTrustedKey(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'k.pub')],
    allow: { repositories: ['reg:5000/team'], services: ['web'], paths: [], publishedPorts: [] },
    listen: null,
    datasets: null,
    requireSignature: true,
    network: 'host',
    envDir,
    workloads: null,
    processRuntime: 'enabled',
    runAsRoot: false,
    logMaxBytes: null,
    publicIp: null,
    proxyBind: null,
    edge: { proxy: null, dns: null, tls: 'auto' },
  };
  host = await openPipelineHost({ dataDir: join(dir, 'data'), config, ports: new PortRegistry(join(dir, 'data'), { min: 25500, max: 25599 }), log: () => {}, docker: null });
});

function envelope(extra: Record<string, unknown> = {}) {
  const payload = { service: 'web', repository: 'reg:5000/team/web', digest: `sha256:${'e'.repeat(64)}`, host: 'h1', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce: randomUUID(), ...extra };
  const bytes = Buffer.from(JSON.stringify(payload));
  return { payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key: privateKey, dsaEncoding: 'der' }).toString('base64') };
}
const slot = { scope: 'standalone', service: 'web' };
const request = (mode: 'deploy' | 'preflight', env: unknown) => ({ mode, slot, envelope: env, spec: null, datasets: {}, version: null }) as const;

describe('runPipeline without a docker runtime', () => {
  it('preflight: runtime fails first, the rest is skipped with the reason', async () => {
    const run = await runPipeline(host, request('preflight', envelope()));
    expect(run.state).toBe('failure');
    expect(run.stages.map((s) => [s.name, s.status])).toEqual([['runtime', 'failed'], ['admit', 'skipped'], ['ports', 'skipped'], ['proxy', 'skipped'], ['dns', 'skipped']]);
    expect(run.stages[1]!.detail).toBe('not run: runtime failed');
    expect(run.error).toMatch(/^runtime: no docker runtime on this host/);
  });

  it('deploy: admit and verify pass and record the nonce; idempotency fails for want of docker; a replay fails at admit', async () => {
    const env = envelope();
    const run = await runPipeline(host, request('deploy', env));
    expect(run.state).toBe('failure');
    expect(run.stages.map((s) => s.status)).toEqual(['ok', 'ok', 'failed', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(run.stages.every((s) => typeof s.took_ms === 'number')).toBe(true);
    expect(await host.nonces.seen(JSON.parse(Buffer.from(env.payload, 'base64').toString()).nonce)).toBe(true);
    const replay = await runPipeline(host, request('deploy', env));
    expect(replay.stages[0]).toMatchObject({ name: 'admit', status: 'failed', detail: expect.stringMatching(/^replayed/) });
    // Nothing but the replay record, the env-hash key and the lock files were written.
    expect(readdirSync(join(dir, 'data')).sort()).toEqual(['envelopes', 'locks']);
    expect(readdirSync(envDir)).toEqual([]);
  });

  it('of 20 concurrent deliveries of one envelope (20 envs: no slot lock orders them) exactly one passes verify; the others are refused as replays', async () => {
    const env = envelope();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runPipeline(host, { ...request('deploy', env), slot: { scope: `env_race${i}`, service: 'web' } })),
    );
    const verified = runs.filter((r) => r.stages.find((s) => s.name === 'verify')!.status === 'ok');
    expect(verified).toHaveLength(1);
    const refused = runs.filter((r) => r !== verified[0]);
    for (const r of refused) {
      expect(r.state).toBe('failure');
      expect(r.error).toMatch(/^(admit|verify): replayed: nonce "/);
    }
  });

  it('refuses a missing envelope on a host that requires signatures, and a non-JSON-object envelope', async () => {
    const none = await runPipeline(host, request('deploy', null));
    expect(none.error).toMatch(/^admit: no envelope: this host requires a signed envelope/);
    const junk = await runPipeline(host, request('deploy', 'junk'));
    expect(junk.error).toMatch(/^admit: envelope: /);
  });
});
