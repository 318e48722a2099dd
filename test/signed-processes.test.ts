/**
 * Signed process services (issue 10, item 1: "an agent config switch … to require process
 * services to be signed too"; docs/envelope.md "Process services"), against a real control
 * plane and a real agent with `process_runtime: signed`: what runs must be what a trusted key
 * signed, a replay and a changed Compose file are refused, and the same spec starts again in its
 * env (stop/start, fork) without a new envelope. env.exec (the warm phase) is refused there.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { createPublicKey } from 'node:crypto';
import { envelopeOf, testKey, type TestKey } from './helpers/envelopes.js';
import { fingerprintOf } from '../src/lib/envelope-crypto.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const COMMAND = ['node', APP];
const ENVIRONMENT = { VERSION: 'signed-v1' };

let h: Harness;
let dir: string;
let key: TestKey;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'denv-signed-proc-'));
  key = testKey();
  writeFileSync(join(dir, 'ci.pub'), key.publicPem);
  writeFileSync(join(dir, 'agent.yaml'), stringify({ trusted_keys: ['ci.pub'], allow: { services: ['api'] }, process_runtime: 'signed' }));
  h = await startHarness({ agentConfig: join(dir, 'agent.yaml') });
  expect((await h.api.post('/v1/projects', { name: 'sp' })).status).toBe(201);
});

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A process envelope for service `api`, signed by `signer`. */
function envelope(o: { process?: Record<string, unknown>; env?: Record<string, string>; signer?: TestKey; nonce?: string } = {}) {
  return envelopeOf(
    {
      service: 'api',
      host: 'test-host',
      expires_at: new Date(Date.now() + 600_000).toISOString(),
      nonce: o.nonce ?? `n-${Math.random().toString(36).slice(2)}`,
      process: o.process ?? { command: COMMAND },
      env: o.env ?? ENVIRONMENT,
    },
    o.signer ?? key,
  );
}

const compose = (o: { command?: string[]; environment?: Record<string, string> } = {}) => ({
  services: { api: { command: o.command ?? COMMAND, environment: o.environment ?? ENVIRONMENT, 'x-denv': { health: { path: '/healthz' } } } },
});

async function deploy(env: string, body: Record<string, unknown>): Promise<Deployment> {
  const res = await h.api.post('/v1/projects/sp/deploy', { env, compose: compose(), ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return h.api.finished(res.body.deployment.id);
}
const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
const statusIs = (id: string, status: string) => waitFor(async () => (await envOf(id)).status === status, 60_000, `env ${id} to be ${status}`);

describe('process_runtime: signed', () => {
  it('refuses a process service without an envelope, and runs the one a trusted key signed', async () => {
    const unsigned = await deploy('one', {});
    expect(unsigned.status).toBe('failed');
    expect(unsigned.error).toMatch(/api: no envelope: this host runs process services only when signed \(process_runtime: signed\)/);

    // Refused at admit, a hard gate: the service's pipeline changed nothing.
    const stagesOf = (d: Deployment) => (d.phases.find((p) => p.name === 'prepare')!.evidence!.pipelines as Record<string, { state: string; stages: { name: string; status: string; detail?: string }[] }>).api!;
    expect(stagesOf(unsigned).state).toBe('failure');
    expect(stagesOf(unsigned).stages[0]).toMatchObject({ name: 'admit', status: 'failed' });
    expect(unsigned.phases.find((p) => p.name === 'verdict')!.evidence).toMatchObject({ changed: false, refused: { api: 'admit' } });

    const signed = await deploy('one', { envelopes: [envelope()] });
    expect(signed.status, signed.error ?? '').toBe('succeeded');
    // verify names the host's trusted key that signed it.
    expect(stagesOf(signed).stages.slice(0, 2)).toEqual([
      { name: 'admit', status: 'ok', detail: 'a signed envelope admits it' },
      { name: 'verify', status: 'ok', detail: `signed by ${fingerprintOf(createPublicKey(key.publicPem))}` },
    ]);
    const url = (await envOf(signed.env)).endpoints[0]!.url;
    expect(await (await fetch(url)).text()).toMatch(/^signed-v1 \d+$/);
  });

  it('refuses what the envelope does not sign: another command, another env value, an untrusted key, a replay, an image envelope', async () => {
    const refusedWith = async (env: string, body: Record<string, unknown>, message: RegExp) => {
      const d = await deploy(env, body);
      expect(d.status, env).toBe('failed');
      expect(d.error, env).toMatch(message);
    };
    await refusedWith('cmd', { compose: compose({ command: ['node', '-e', 'require("fs").readFileSync("/etc/shadow")'] }), envelopes: [envelope()] }, /process\.command: the Compose command is not the signed one/);
    await refusedWith('val', { compose: compose({ environment: { VERSION: 'changed' } }), envelopes: [envelope()] }, /environment VERSION: the Compose file and the envelope's env differ/);
    await refusedWith('key', { envelopes: [envelope({ signer: testKey() })] }, /signature does not verify under any of the 1 trusted key/);
    const once = envelope();
    expect((await deploy('replay-a', { envelopes: [once] })).status).toBe('succeeded');
    await refusedWith('replay-b', { envelopes: [once] }, /replayed: nonce "n-[a-z0-9]+" was already used on this host/);
    // A process envelope for an image service, or an image envelope for a process service, is refused by the control plane at once.
    const image = envelopeOf({ service: 'api', repository: 'r.example/x', digest: `sha256:${'a'.repeat(64)}`, host: 'test-host', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce: 'img-1' }, key);
    const res = await h.api.post('/v1/projects/sp/deploy', { env: 'img', compose: compose(), envelopes: [image] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/envelopes\.0: service "api" has no image; an envelope for a process service signs `process`/);
  });

  it('the same spec starts again in its env and in a fork of it without a new envelope; env.exec is refused', async () => {
    const first = await deploy('again', { envelopes: [envelope()] });
    expect(first.status, first.error ?? '').toBe('succeeded');
    const id = first.env;
    expect((await h.api.post(`/v1/envs/${id}/stop`, {})).status).toBe(202);
    await statusIs(id, 'stopped');
    expect((await h.api.post(`/v1/envs/${id}/start`, {})).status).toBe(202);
    await statusIs(id, 'running');
    expect(await (await fetch((await envOf(id)).endpoints[0]!.url)).text()).toMatch(/^signed-v1 /);

    const fork = await h.api.post(`/v1/envs/${id}/fork`, { name: 'again-fork' });
    expect(fork.status, JSON.stringify(fork.body)).toBe(202);
    const forked = await h.api.finished(fork.body.deployment.id);
    expect(forked.status, forked.error ?? '').toBe('succeeded');

    // The warm phase runs an argv no envelope signs (env.exec).
    const warmed = await deploy('warm', { envelopes: [envelope()], warm: 'node -e 1' });
    expect(warmed.status).toBe('failed');
    expect(warmed.error).toMatch(/env\.exec: refused: this host runs only signed commands \(process_runtime: signed\)/);
  });
});
