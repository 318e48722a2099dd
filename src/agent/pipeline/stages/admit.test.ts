/**
 * admit (seed 004 stage 1) on its own, with a real host config, trusted key and nonce record on a
 * temp data dir: every refusal in order, the Compose⇄envelope agreement of control-plane deploys,
 * unsigned deploys on a host that allows them, and what an admitted envelope settles (target,
 * evidence). Messages name settings, never values.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../../contracts/load-spec.js';
import type { ServiceSpec } from '../../../contracts/spec.js';
import { loadTrustedKey } from '../../../lib/envelope-crypto.js';
import type { AgentConfig } from '../../config/agent-config.js';
import { PortRegistry } from '../../ports.js';
import { openPipelineHost, type PipelineHost } from '../pipeline-host.js';
import type { PipelineRequest, RunState } from '../stage.js';
import { admitEnvelope } from './admit.js';
import { preflightAdmit } from './preflight-admit.js';

const REPO = 'reg:5000/team/web';
const DIGEST = `sha256:${'e'.repeat(64)}`;
const OTHER_DIGEST = `sha256:${'f'.repeat(64)}`;
const dir = mkdtempSync(join(tmpdir(), 'denv-admit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

const config = (o: Partial<AgentConfig> = {}): AgentConfig => ({
  name: 'h1',
  trustedKeys: [loadTrustedKey(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'k.pub')],
  allow: { repositories: ['reg:5000/team'], services: ['web'], paths: ['/srv/allowed'], publishedPorts: [] },
  listen: null,
  datasets: null,
  requireSignature: true,
  network: 'host',
  envDir: null,
  workloads: null,
  processRuntime: 'enabled',
  runAsRoot: false,
  logMaxBytes: null,
  publicIp: null,
  proxyBind: null,
  edge: { proxy: null, dns: null, tls: 'auto' },
  ...o,
});

let strict: PipelineHost;
let lenient: PipelineHost;
beforeAll(async () => {
  const open = (name: string, cfg: AgentConfig) =>
    openPipelineHost({ dataDir: join(dir, name), config: { ...cfg, envDir: join(dir, name, 'env') }, ports: new PortRegistry(join(dir, name), { min: 25600, max: 25699 }), log: () => {}, docker: null });
  strict = await open('strict', config());
  lenient = await open('lenient', config({ requireSignature: false }));
});

function envelope(extra: Record<string, unknown> = {}) {
  const payload = { service: 'web', repository: REPO, digest: DIGEST, host: 'h1', expires_at: new Date(Date.now() + 60_000).toISOString(), nonce: randomUUID(), ...extra };
  const bytes = Buffer.from(JSON.stringify(payload));
  return { payload: bytes.toString('base64'), signature: sign('sha256', bytes, { key: privateKey, dsaEncoding: 'der' }).toString('base64') };
}

/** The `web` service of a Compose file, as the agent receives it from the control plane. */
async function web(service: Record<string, unknown>): Promise<ServiceSpec> {
  return (await loadSpec({ services: { web: service } })).services.web!;
}

function state(): RunState {
  return {
    record: null, decoded: null, target: null, envHash: null, configHash: null, envFile: null, port: null, changed: false, deployed: null,
    edge: { proxy: { provider: 'none', status: 'skipped' }, dns: { provider: 'none', status: 'skipped' }, hostnames: [] }, endpoint: null, logTail: null,
  };
}

async function admit(host: PipelineHost, req: Partial<PipelineRequest>) {
  const s = state();
  const out = await admitEnvelope({ host, state: s, req: { mode: 'deploy', slot: { scope: 'env_a', service: 'web' }, envelope: null, spec: null, datasets: {}, version: null, ...req } });
  return { ...out, state: s };
}

describe('admit refuses, naming the reason', () => {
  it.each([
    ['an envelope for another host', envelope({ host: 'h2' }), 'envelope is for host "h2", this host is "h1"'],
    ['an expired envelope', envelope({ expires_at: '2020-01-01T00:00:00Z' }), 'expired at 2020-01-01T00:00:00Z'],
    ['an envelope for another service than the slot', envelope({ service: 'webber' }), 'envelope is for service "webber", not "web"'],
    ['a repository outside allow.repositories', envelope({ repository: 'reg:5000/teamster/web' }), 'repository "reg:5000/teamster/web" is not allowed on this host (allow.repositories)'],
    ['another project', envelope({ scope: { project: 'other' } }), 'scope.project: the envelope is for project "other", this deploy is for "shop"'],
    ['another env', envelope({ scope: { project: 'shop', env: 'staging' } }), 'scope.env: the envelope is for env "staging", this deploy is for "production"'],
    ['a process envelope for an image service', envelope({ repository: undefined, digest: undefined, process: { command: ['/bin/true'] } }), 'envelope signs process service "web" (it has `process`); an image service needs an envelope with repository and digest'],
    ['an envelope that does not decode', { payload: 'x', signature: 'y' }, /^envelope: payload: expected canonical base64/],
  ])('%s', async (_what, env, detail) => {
    const res = await admit(strict, { envelope: env, names: { project: 'shop', env: 'production' } });
    expect(res.status).toBe('failed');
    if (typeof detail === 'string') expect(res.detail).toBe(detail);
    else expect(res.detail).toMatch(detail);
    expect(res.state.target).toBeNull();
    expect(res.state.decoded).toBeNull();
  });

  it('a service the host does not allow, and a standalone deploy of a scoped envelope (it names no project)', async () => {
    const other = await admit(strict, { envelope: envelope({ service: 'db' }), slot: { scope: 'env_a', service: 'db' } });
    expect(other.detail).toBe('service "db" is not allowed on this host (allow.services)');
    const standalone = await admit(strict, { envelope: envelope({ scope: { env: 'production' } }) });
    expect(standalone.detail).toBe('scope.env: the envelope is for env "production", this deploy names no env');
  });

  it('a replayed nonce, read-only: admit looks the nonce up and records nothing', async () => {
    const env = envelope();
    const nonce = JSON.parse(Buffer.from(env.payload, 'base64').toString()).nonce as string;
    expect((await admit(strict, { envelope: env })).status).toBe('ok');
    expect(await strict.nonces.seen(nonce)).toBe(false);
    await strict.nonces.consume(nonce, new Date(Date.now() + 60_000).toISOString());
    expect((await admit(strict, { envelope: env })).detail).toBe(`replayed: nonce "${nonce}" was already used on this host`);
  });

  it('no envelope on a host that requires signatures, or on a standalone deploy (the request is its envelope); absent is the same as null', async () => {
    const message = 'no envelope: this host requires a signed envelope for image services (require_signature)';
    expect(await admit(strict, { spec: await web({ image: REPO }) })).toMatchObject({ status: 'failed', detail: message });
    expect(await admit(strict, { spec: await web({ image: REPO }), envelope: undefined })).toMatchObject({ status: 'failed', detail: message });
    expect(await admit(lenient, { spec: null })).toMatchObject({ status: 'failed', detail: message });
    const mounts = [{ source: '/srv/allowed/conf', target: '/etc/app.conf', host_path: true }] as never;
    expect(await admit(lenient, { spec: await web({ image: REPO }), envelope: undefined, fileMounts: mounts })).toMatchObject({ status: 'skipped' });
  });

  it('a scope naming only the project binds only the project', async () => {
    expect((await admit(strict, { envelope: envelope({ scope: { project: 'shop' } }), names: { project: 'shop', env: 'production' } })).status).toBe('ok');
    expect((await admit(strict, { envelope: envelope({ scope: { env: 'production' } }), names: { project: 'any', env: 'production' } })).status).toBe('ok');
  });

  it('files mounted into the container: refused on a signed deploy (their content is not signed), and host paths outside allow.paths', async () => {
    const mounts = [{ source: '/srv/allowed/conf', target: '/etc/app.conf', host_path: true }, { source: '/var/lib/denv/s', target: '/run/secrets/s', host_path: false }] as never;
    const signed = await admit(lenient, { envelope: envelope(), fileMounts: mounts });
    expect(signed.detail).toBe('bind mounts, secrets and configs (/etc/app.conf, /run/secrets/s) are refused on a signed deploy: their content is not covered by the signature; bake them into the image or use a dataset');
    // A host that requires signatures refuses them even without an envelope.
    expect((await admit(strict, { spec: await web({ image: REPO }), fileMounts: mounts })).detail).toMatch(/^bind mounts, secrets and configs \(\/etc\/app\.conf, \/run\/secrets\/s\) are refused on a signed deploy/);
    const outside = [{ source: '/etc/shadow', target: '/x', host_path: true }] as never;
    expect((await admit(lenient, { spec: await web({ image: REPO }), fileMounts: outside })).detail).toBe('bind mount of host path /etc/shadow is not allowed on this host (agent config allow.paths)');
    expect((await admit(lenient, { spec: await web({ image: REPO }), fileMounts: mounts })).status).toBe('skipped');
  });
});

describe('admit: a control-plane deploy must say what the envelope signs', () => {
  it.each([
    ['no image', { command: ['/bin/true'] }, 'service web has no image in the Compose file'],
    ['another repository', { image: 'reg:5000/team/other' }, 'the Compose image\'s repository "reg:5000/team/other" is not the signed repository "reg:5000/team/web"'],
    ['another pinned digest', { image: `${REPO}@${OTHER_DIGEST}` }, `the Compose image pins ${OTHER_DIGEST}, the envelope signs ${DIGEST}`],
    ['a value the envelope signs differently', { image: REPO, environment: { GREETING: 'unsigned-value' } }, 'environment GREETING in the Compose file is not bound by the envelope with the same value'],
    ['a variable the envelope does not sign', { image: REPO, environment: { GREETING: 'hello', EXTRA: 'x' } }, 'environment EXTRA in the Compose file is not bound by the envelope with the same value'],
    ['an entrypoint the envelope does not sign', { image: REPO, entrypoint: ['/bin/sh'] }, /^run\.entrypoint: the Compose file sets it and the envelope does not; on a host that requires signatures/],
    ['a command other than the signed one', { image: REPO, command: ['/bin/sh'] }, /^run\.command: the Compose file sets it differently from the envelope/],
  ])('%s is refused', async (_what, service, detail) => {
    const res = await admit(strict, { envelope: envelope({ env: { GREETING: 'hello' }, run: { command: ['/bin/httpd'] } }), spec: await web(service) });
    expect(res.status).toBe('failed');
    if (typeof detail === 'string') expect(res.detail).toBe(detail);
    else expect(res.detail).toMatch(detail);
    expect(res.detail).not.toContain('unsigned-value');
  });

  it('the same repository, the signed digest pinned, the signed values (and signed variables the Compose file leaves out) are admitted', async () => {
    const res = await admit(strict, {
      envelope: envelope({ env: { GREETING: 'hello', ONLY_SIGNED: 'y' } }),
      spec: await web({ image: `${REPO}@${DIGEST}`, environment: { GREETING: 'hello' } }),
    });
    expect(res.status).toBe('ok');
    expect(res.state.target).toMatchObject({ ref: `${REPO}@${DIGEST}`, env: { GREETING: 'hello', ONLY_SIGNED: 'y' }, signed: true });
    // A tag in the Compose file is not a pin: the envelope's digest decides.
    expect((await admit(strict, { envelope: envelope(), spec: await web({ image: `${REPO}:latest` }) })).status).toBe('ok');
  });

  it('on a host that does not require signatures, the Compose file may set what runs; the envelope still wins where it says', async () => {
    const res = await admit(lenient, { envelope: envelope({ run: { command: ['/bin/httpd', '-f'] } }), spec: await web({ image: REPO, entrypoint: ['/bin/sh', '-c'], command: ['ignored'] }) });
    expect(res.status).toBe('ok');
    expect(res.state.target!.run).toMatchObject({ entrypoint: ['/bin/sh', '-c'], command: ['/bin/httpd', '-f'] });
  });

  it('signed mounts must name datasets of the deploy', async () => {
    const env = envelope({ run: { volumes: [{ source: 'data', target: '/data' }, { source: 'cache', target: '/cache' }] } });
    expect((await admit(strict, { envelope: env, datasets: { data: '/d' } })).detail).toBe('run.volumes.1.source: no dataset "cache" in this deploy (declare it under the Compose file\'s top-level volumes)');
    expect((await admit(strict, { envelope: envelope({ run: { volumes: [{ source: 'cache', target: '/cache' }] } }), datasets: { data: '/d' } })).detail).toMatch(/^run\.volumes\.0\.source: no dataset "cache"/);
    const ok = await admit(strict, { envelope: envelope({ run: { volumes: [{ source: 'data', target: '/data' }] } }), datasets: { data: '/d' } });
    expect(ok.status).toBe('ok');
    expect(ok.state.target!.run.volumes).toEqual([{ source: 'data', target: '/data', read_only: false }]);
  });
});

describe('admit: what an admitted deploy settles', () => {
  it('the target, from the envelope: digest, env with sibling addresses filled, health, hostnames; evidence without values', async () => {
    const env = envelope({
      env: { GREETING: 'hello', API: 'http://${DENV_API_HOST}:${DENV_API_PORT}' },
      health: { path: '/ready', timeout: '5s' },
      edge: { hostnames: ['app.example.com'] },
      run: { command: ['/bin/httpd'] },
      scope: { project: 'shop' },
    });
    const res = await admit(strict, { envelope: env, siblings: { DENV_API_HOST: '127.0.0.1', DENV_API_PORT: '20001' }, names: { project: 'shop', env: 'production' } });
    expect(res.status).toBe('ok');
    const p = JSON.parse(Buffer.from(env.payload, 'base64').toString());
    expect(res.state.decoded?.payload).toEqual(p);
    expect(res.state.target).toEqual({
      repository: REPO, digest: DIGEST, ref: `${REPO}@${DIGEST}`,
      env: { GREETING: 'hello', API: 'http://127.0.0.1:20001' },
      health: { kind: 'http', path: '/ready', port: null, timeout_ms: 5000 },
      hostnames: ['app.example.com'], signed: true,
      run: { entrypoint: null, command: ['/bin/httpd'], working_dir: null, user: null, healthcheck: null, volumes: null },
    });
    expect(res.evidence).toEqual({
      service: 'web', repository: REPO, digest: DIGEST, host: 'h1', expires_at: p.expires_at, nonce: p.nonce, env_keys: 2, hostnames: ['app.example.com'], run: ['command'], scope: { project: 'shop' },
    });
    expect(JSON.stringify(res.evidence)).not.toContain('hello');
  });

  it('health: the envelope\'s (30 s without a timeout), else the signed Docker healthcheck, else the Compose HTTP check, else "stays up for 1 s"', async () => {
    const target = async (extra: Record<string, unknown>, service?: Record<string, unknown>) => (await admit(strict, { envelope: envelope(extra), ...(service ? { spec: await web(service) } : {}) })).state.target!;
    expect((await target({ health: { path: '/h' } })).health).toEqual({ kind: 'http', path: '/h', port: null, timeout_ms: 30_000 });
    expect((await target({ run: { healthcheck: { test: ['CMD', '/bin/check'], interval: '2s' } } })).health).toEqual({ kind: 'command', test: ['/bin/check'], interval_ms: 2000, timeout_ms: 30_000, retries: 3, start_period_ms: 0 });
    expect((await target({}, { image: REPO, 'x-denv': { health: { path: '/healthz', timeout: '3s' } } })).health).toMatchObject({ kind: 'http', path: '/healthz', timeout_ms: 3000 });
    expect((await target({})).health).toEqual({ kind: 'alive', for_ms: 1000 });
    expect((await target({})).hostnames).toEqual([]);
  });

  it('an unsigned deploy on a host that allows it: skipped, the target from the Compose file (a tag, pulled as written)', async () => {
    const res = await admit(lenient, { spec: await web({ image: `${REPO}:1.2`, environment: { A: '${DENV_DB_HOST}' } }), siblings: { DENV_DB_HOST: '10.0.0.2' } });
    expect(res).toMatchObject({ status: 'skipped', detail: 'unsigned: this host does not require signatures (require_signature: false)', evidence: { image: `${REPO}:1.2` } });
    expect(res.state.target).toMatchObject({ repository: REPO, digest: null, ref: `${REPO}:1.2`, env: { A: '10.0.0.2' }, hostnames: [], signed: false });
    expect(res.state.decoded).toBeNull();
  });
  it('an image a source deploy built here: unsigned, its id is the digest, on a host that allows it; refused with the way out on one that requires signatures', async () => {
    const built = { tag: 'denv-build/web:0123456789abcdef01234567', image_id: `sha256:${'a'.repeat(64)}`, commit: 'c'.repeat(40), key: '0123456789abcdef01234567', cached: false, took_ms: 12 };
    const spec = await web({ build: 'app' });
    const ok = await admit(lenient, { spec, built });
    expect(ok).toMatchObject({ status: 'skipped', detail: 'unsigned: built on this host from source; this host does not require signatures (require_signature: false)', evidence: { image: built.tag, image_id: built.image_id, commit: built.commit } });
    expect(ok.state.target).toMatchObject({ repository: 'denv-build/web', digest: built.image_id, ref: built.tag, signed: false, built });
    const refused = await admit(strict, { spec, built });
    expect(refused.status).toBe('failed');
    expect(refused.detail).toBe(`no envelope: this host requires a signed envelope for image services (require_signature), and ${built.tag} was built here from source, signed by nobody: give the host a build_key (its public key among trusted_keys), build it in CI and deploy the pushed digest with an envelope, or build on a host with require_signature: false`);
    expect(refused.state.target).toBeNull();
  });
});

describe('preflight admit', () => {
  const preflight = async (host: PipelineHost, env: unknown) => preflightAdmit.run({ host, state: state(), req: { mode: 'preflight', slot: { scope: 'standalone', service: 'web' }, envelope: env, spec: null, datasets: {}, version: null } });

  it('passes admit and the signature with both evidences, and leaves the nonce unrecorded', async () => {
    const env = envelope();
    const res = await preflight(strict, env);
    expect(res).toMatchObject({ status: 'ok', evidence: { service: 'web', digest: DIGEST, algorithm: 'ecdsa-p256-sha256', key: expect.any(String) } });
    expect(await strict.nonces.seen(JSON.parse(Buffer.from(env.payload, 'base64').toString()).nonce)).toBe(false);
  });

  it('fails what admit refuses, a signature that does not verify, and an unsigned request', async () => {
    expect(await preflight(strict, envelope({ host: 'h2' }))).toMatchObject({ status: 'failed', detail: 'envelope is for host "h2", this host is "h1"' });
    const forged = { ...envelope(), signature: envelope().signature };
    expect(await preflight(strict, forged)).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^signature does not verify under any of the 1 trusted key /) });
    expect(await preflight(lenient, null)).toMatchObject({ status: 'failed', detail: 'no envelope: this host requires a signed envelope for image services (require_signature)' });
    // An unsigned control-plane request admit would let through on this host: preflight still wants a signature.
    const unsigned = await preflightAdmit.run({ host: lenient, state: state(), req: { mode: 'preflight', slot: { scope: 'env_a', service: 'web' }, envelope: null, spec: await web({ image: REPO }), datasets: {}, version: null } });
    expect(unsigned).toEqual({ status: 'failed', detail: 'preflight needs a signed envelope' });
  });
});
