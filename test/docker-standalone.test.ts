/**
 * Seed 004's pipeline on a real Docker Engine and registry, through the agent's standalone
 * `POST /deploy` and `POST /preflight` (a real `denv agent` process): signed deploys by digest,
 * every refusal at admit/verify/pull changing nothing, rollback on failed health, concurrency
 * under the per-service lock, replay across restarts, preflight changing nothing, env files on
 * tmpfs, no secret in logs or answers, no program started through a shell, and the CLI's
 * `denv sign` / `denv preflight` and the GitHub Action against the same agent.
 *
 * Needs the engine and the registry (`.ci/docker-up`); without them it fails, it never skips.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/lib/exec.js';
import { agentTagOf } from '../src/agent/runtimes/docker/slot.js';
import { buildTestImages, type TestImage, type TestImages } from './helpers/docker-images.js';
import { post, startDockerAgent, type DockerAgent } from './helpers/docker-agent.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from './helpers/envelopes.js';
import { DENV_BIN } from './helpers/processes.js';

const HOST = 'ci-host';
const SECRET = `s3cr3t-${randomUUID()}`;
const TMPFS_MAGIC = 0x01021994;
const ACTION = fileURLToPath(new URL('../action/index.mjs', import.meta.url));

let images: TestImages;
let agent: DockerAgent;
let trusted: TestKey;
const answers: unknown[] = [];

function payload(image: TestImage, extra: Record<string, unknown> = {}) {
  return payloadOf({ service: 'web', repository: image.repository, digest: image.digest, host: HOST, env: { GREETING: SECRET }, health: { path: '/healthz', timeout: '5s' }, ...extra });
}

async function deploy(body: unknown, path: '/deploy' | '/preflight' = '/deploy') {
  const res = await post(agent.url, path, body);
  answers.push(res.body);
  return res;
}

const stage = (answer: { stages: { name: string; status: string; detail?: string; evidence?: any }[] }, name: string) => answer.stages.find((s) => s.name === name)!;
const statuses = (answer: { stages: { status: string }[] }) => answer.stages.map((s) => s.status);
const text = async (url: string) => (await fetch(url)).text();
const imagePresent = (ref: string) => {
  try {
    execFileSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const recordFile = () => {
  const dir = join(agent.dataDir, 'docker');
  const slot = readdirSync(dir).find((d) => d.startsWith('standalone.web-'))!;
  return join(dir, slot, 'record.json');
};
const containerIds = () => execFileSync('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=dev.denv.slot=standalone/web`], { encoding: 'utf8' }).split('\n').filter(Boolean);

/** Every file under `dir`: path → size, mode, mtime, content hash. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else out[relative(dir, full)] = `${st.size} ${st.mode} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  images = await buildTestImages();
  trusted = testKey();
  agent = await startDockerAgent(
    { name: HOST, trusted_keys: ['ci.pub'], allow: { repositories: ['127.0.0.1:5000/denv-test'], services: ['web', 'api'] }, network: 'host' },
    { files: { 'ci.pub': trusted.publicPem } },
  );
}, 120_000);

afterAll(async () => {
  await agent?.close();
});

describe('signed deploys on a real engine and registry', () => {
  it('deploys a signed image by digest; it answers HTTP and gets its env from a 0600 file on tmpfs', async () => {
    const res = await deploy(envelopeOf(payload(images.v1), trusted));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.state).toBe('success');
    expect(res.body.stages.map((s: { name: string }) => s.name)).toEqual(['admit', 'verify', 'idempotency', 'pull', 'env', 'recreate', 'health', 'proxy', 'dns', 'persist']);
    expect(statuses(res.body)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'skipped', 'skipped', 'ok']);
    expect(stage(res.body, 'proxy').detail).toMatch(/no edge.hostnames in the envelope/);
    expect(stage(res.body, 'verify')).toMatchObject({ evidence: { algorithm: 'ecdsa-p256-sha256' } });
    expect(res.body.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await text(res.body.endpoint)).toBe('v1');
    expect(await text(`${res.body.endpoint}/cgi-bin/greeting`)).toBe(SECRET);

    const files = readdirSync(agent.envDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files).toHaveLength(1);
    const envFile = join(files[0]!.parentPath, files[0]!.name);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(statfsSync(envFile).type).toBe(TMPFS_MAGIC);
    expect(readFileSync(envFile, 'utf8')).toBe(`GREETING="${SECRET}"\n`);
    const record = JSON.parse(readFileSync(recordFile(), 'utf8'));
    expect(record.current).toMatchObject({ digest: images.v1.digest, repository: images.v1.repository, env_keys: 1, signed: true, edge: { proxy: { provider: 'none', status: 'skipped' } } });
  });

  it('refuses tampered, foreign, expired and disallowed envelopes at admit or verify, changing and pulling nothing', async () => {
    const before = { record: readFileSync(recordFile(), 'utf8'), containers: containerIds() };
    expect(imagePresent(images.v2.ref)).toBe(false);
    const good = payload(images.v2);
    const flipPayload = (() => {
      const env = envelopeOf(good, trusted);
      const bytes = Buffer.from(env.payload, 'base64');
      const at = bytes.indexOf(Buffer.from(String(good.nonce))) + 1;
      bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61; // one character of the nonce: still a valid payload, no longer the signed one
      return { ...env, payload: bytes.toString('base64') };
    })();
    const flipSignature = (() => {
      const env = envelopeOf(good, trusted);
      const sig = Buffer.from(env.signature, 'base64');
      sig[sig.length - 1]! ^= 0x01;
      return { ...env, signature: sig.toString('base64') };
    })();
    const cases: [string, unknown, 'admit' | 'verify', RegExp][] = [
      ['a flipped payload byte', flipPayload, 'verify', /does not verify/],
      ['a flipped signature byte', flipSignature, 'verify', /does not verify/],
      ['a key the host does not trust', envelopeOf(good, testKey()), 'verify', /does not verify/],
      ['a P-384 key', envelopeOf(good, testKey('secp384r1')), 'verify', /does not verify/],
      ['a raw r‖s signature', envelopeOf(good, trusted, { raw: true }), 'verify', /does not verify/],
      ['an expired envelope', envelopeOf(payload(images.v2, { expires_at: new Date(Date.now() - 1000).toISOString() }), trusted), 'admit', /^expired at/],
      ['an envelope for 2 h', envelopeOf(payload(images.v2, { expires_at: new Date(Date.now() + 7_200_000).toISOString() }), trusted), 'admit', /more than 1 h ahead/],
      ["another host's envelope", envelopeOf(payload(images.v2, { host: 'other-host' }), trusted), 'admit', /is for host "other-host"/],
      ['a repository outside the allowlist', envelopeOf(payload(images.v2, { repository: '127.0.0.1:5000/elsewhere/web' }), trusted), 'admit', /not allowed on this host \(allow\.repositories\)/],
      ['a service outside the allowlist', envelopeOf(payload(images.v2, { service: 'db' }), trusted), 'admit', /not allowed on this host \(allow\.services\)/],
      ['an unknown payload field', envelopeOf({ ...good, privileged: true }, trusted), 'admit', /unknown field "privileged"/],
      ['an unknown envelope field', { ...envelopeOf(good, trusted), key: trusted.publicPem }, 'admit', /unknown field "key"/],
    ];
    for (const [what, body, at, detail] of cases) {
      const res = await deploy(body);
      expect(res.status, what).toBe(422);
      expect(res.body.state, what).toBe('failure');
      const failed = res.body.stages.filter((s: { status: string }) => s.status === 'failed');
      expect(failed.map((s: { name: string }) => s.name), what).toEqual([at]);
      expect(failed[0].detail, what).toMatch(detail);
      const after = res.body.stages.slice(res.body.stages.findIndex((s: { name: string }) => s.name === at) + 1);
      expect(after.every((s: { status: string }) => s.status === 'skipped'), what).toBe(true);
    }
    expect(imagePresent(images.v2.ref)).toBe(false);
    expect(readFileSync(recordFile(), 'utf8')).toBe(before.record);
    expect(containerIds()).toEqual(before.containers);
    expect(await text(`http://127.0.0.1:${JSON.parse(before.record).current.port}`)).toBe('v1');
  });

  it('refuses a replayed envelope, also after the agent restarts', async () => {
    const env = envelopeOf(payload(images.v1), trusted);
    expect((await deploy(env)).body.state).toBe('no_op');
    const replay = await deploy(env);
    expect(replay.body.state).toBe('failure');
    expect(stage(replay.body, 'admit').detail).toMatch(/^replayed: nonce/);
    await agent.restart();
    const afterRestart = await deploy(env);
    expect(afterRestart.body.state).toBe('failure');
    expect(stage(afterRestart.body, 'admit')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^replayed/) });
  });

  it('fails at pull, changing nothing, when the signed digest is not what the registry has', async () => {
    const before = readFileSync(recordFile(), 'utf8');
    const missing = `sha256:${createHash('sha256').update(randomUUID()).digest('hex')}`;
    const res = await deploy(envelopeOf(payload(images.v1, { digest: missing }), trusted));
    expect(res.body.state).toBe('failure');
    expect(statuses(res.body).slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'failed']);
    expect(stage(res.body, 'pull').detail).toContain(missing);
    expect(stage(res.body, 'recreate').status).toBe('skipped');
    expect(readFileSync(recordFile(), 'utf8')).toBe(before);
  });

  it('rolls back to the previous image and env when health fails; the previous container keeps serving', async () => {
    const port = JSON.parse(readFileSync(recordFile(), 'utf8')).current.port;
    // The failing deploy brings its own env too, so the rollback must restore both.
    const res = await deploy(envelopeOf(payload(images.unhealthy, { health: { path: '/healthz', timeout: '2s' }, env: { GREETING: 'the-failed-deploys-greeting' } }), trusted));
    expect(res.status).toBe(422);
    expect(res.body.state).toBe('failure_rolled_back');
    expect(stage(res.body, 'health')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/GET \/healthz did not answer 2xx/) });
    expect(stage(res.body, 'health').evidence.rollback).toMatchObject({ restored: images.v1.digest, healthy: true });
    expect(['proxy', 'dns', 'persist'].map((n) => stage(res.body, n).status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(res.body.endpoint).toBe(`http://127.0.0.1:${port}`);
    expect(await text(res.body.endpoint)).toBe('v1');
    expect(await text(`${res.body.endpoint}/cgi-bin/greeting`)).toBe(SECRET);
    expect(JSON.parse(readFileSync(recordFile(), 'utf8')).current).toMatchObject({ digest: images.v1.digest, env_keys: 1 });
    const envFiles = readdirSync(agent.envDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const contents = envFiles.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8'));
    expect(contents).toContain(`GREETING="${SECRET}"\n`);
    expect(contents.filter((c) => c.includes('the-failed-deploys-greeting'))).toEqual([]);
  });

  it('runs ten concurrent envelopes for one digest and env as one recreate and nine no_op', async () => {
    const envelopes = Array.from({ length: 10 }, () => envelopeOf(payload(images.v2), trusted));
    const results = await Promise.all(envelopes.map((e) => deploy(e)));
    const states = results.map((r) => r.body.state).sort();
    expect(states).toEqual(['no_op', 'no_op', 'no_op', 'no_op', 'no_op', 'no_op', 'no_op', 'no_op', 'no_op', 'success']);
    expect(results.filter((r) => stage(r.body, 'recreate').status === 'ok')).toHaveLength(1);
    expect(containerIds()).toHaveLength(1);
    expect(await text(results[0]!.body.endpoint)).toBe('v2');
  });

  it('preflight checks the signature, changes no file and starts no container', async () => {
    // This agent's containers only: other test files run their own agents on the same engine at the same time.
    const snapshot = () => ({ data: tree(agent.dataDir), env: tree(agent.envDir), containers: execFileSync('docker', ['ps', '-aq', '--no-trunc', '--filter', `label=dev.denv.agent=${agentTagOf(resolve(agent.dataDir))}`], { encoding: 'utf8' }) });
    const before = snapshot();
    const fresh = envelopeOf(payload(images.v1, { service: 'api' }), trusted);
    const ok = await deploy(fresh, '/preflight');
    expect(ok.status).toBe(200);
    expect(ok.body.state).toBe('preflight_ok');
    expect(ok.body.stages.map((s: { name: string; status: string }) => `${s.name}:${s.status}`)).toEqual(['runtime:ok', 'admit:ok', 'ports:ok', 'proxy:skipped', 'dns:skipped']);
    expect(stage(ok.body, 'ports').detail).toMatch(/^would get port \d+$/);
    const forged = await deploy(envelopeOf(payload(images.v1, { service: 'api' }), testKey()), '/preflight');
    expect(forged.body.state).toBe('failure');
    expect(stage(forged.body, 'admit').detail).toMatch(/does not verify/);
    expect(snapshot()).toEqual(before);
    // The nonce was only looked at: the same envelope still deploys.
    expect((await deploy(fresh)).body.state).toBe('success');
  });

  it('signs with denv sign and with openssl (cosign-style), and denv preflight prints the stages', async () => {
    const keyFile = join(agent.dir, 'ci.pem');
    writeFileSync(keyFile, trusted.privatePem, { mode: 0o600 });
    const signed = await run([process.execPath, DENV_BIN, 'sign', '--key', keyFile, '--service', 'web', '--image', images.v1.ref, '--host', HOST, '--health-path', '/healthz'], { timeoutMs: 30_000 });
    expect(signed.exitCode, signed.stderr).toBe(0);
    const envelopeFile = join(agent.dir, 'envelope.json');
    writeFileSync(envelopeFile, signed.stdout);
    const pre = await run([process.execPath, DENV_BIN, 'preflight', '--agent', agent.url, '--envelope', envelopeFile], { timeoutMs: 30_000 });
    expect(pre.exitCode, pre.stdout + pre.stderr).toBe(0);
    expect(pre.stdout).toMatch(/^STAGE\s+STATUS\s+TOOK\s+DETAIL/m);
    expect(pre.stdout).toMatch(/^runtime\s+✓ ok/m);
    expect(pre.stdout).toContain('state: preflight_ok');
    expect((await deploy(JSON.parse(signed.stdout))).body.state).toBe('success');

    const payloadFile = join(agent.dir, 'payload.json');
    writeFileSync(payloadFile, JSON.stringify(payload(images.v1)));
    const sigFile = join(agent.dir, 'payload.sig');
    expect((await run(['openssl', 'dgst', '-sha256', '-sign', keyFile, '-out', sigFile, payloadFile])).exitCode).toBe(0);
    const res = await deploy({ payload: readFileSync(payloadFile).toString('base64'), signature: readFileSync(sigFile).toString('base64') });
    expect(res.body.state).toBe('success');
    expect(stage(res.body, 'idempotency').detail).toBe('changed: env, config');
  });

  it('the GitHub Action signs, posts, prints the table and sets its exit code', async () => {
    const inputs = (extra: Record<string, string>) => ({
      PATH: process.env.PATH ?? '',
      'INPUT_AGENT-URL': agent.url,
      INPUT_KEY: trusted.privatePem,
      INPUT_IMAGE: images.v2.ref,
      INPUT_SERVICE: 'web',
      INPUT_HOST: HOST,
      INPUT_ENV: `GREETING=${SECRET}\n`,
      'INPUT_HEALTH-PATH': '/healthz',
      INPUT_STRICT: 'true',
      GITHUB_OUTPUT: join(agent.dir, 'gh-output'),
      ...extra,
    });
    const pre = await run([process.execPath, ACTION], { env: inputs({ INPUT_MODE: 'preflight' }), timeoutMs: 60_000 });
    expect(pre.exitCode, pre.stdout + pre.stderr).toBe(0);
    expect(pre.stdout).toContain('state: preflight_ok');
    const dep = await run([process.execPath, ACTION], { env: inputs({}), timeoutMs: 60_000 });
    expect(dep.exitCode, dep.stdout + dep.stderr).toBe(0);
    expect(dep.stdout).toMatch(/^admit\s+ok/m);
    expect(dep.stdout).toContain('state: success');
    expect(readFileSync(join(agent.dir, 'gh-output'), 'utf8')).toMatch(/state=success\nendpoint=http:\/\/127\.0\.0\.1:\d+\n$/);
    const again = await run([process.execPath, ACTION], { env: inputs({}), timeoutMs: 60_000 });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('state: no_op');
    const forged = await run([process.execPath, ACTION], { env: inputs({ INPUT_KEY: testKey().privatePem }), timeoutMs: 60_000 });
    expect(forged.exitCode).toBe(1);
    expect(forged.stdout).toContain('::error::denv deploy ended in failure');
  });

  it('never puts a secret value in its logs, answers or records', () => {
    expect(answers.length).toBeGreaterThan(20);
    expect(JSON.stringify(answers)).not.toContain(SECRET);
    expect(agent.child.output()).not.toContain(SECRET);
    const files = tree(agent.dataDir);
    for (const file of Object.keys(files)) expect(readFileSync(join(agent.dataDir, file), 'utf8').includes(SECRET), file).toBe(false);
  });

  it('never starts an external program through a shell', () => {
    const spawned = readFileSync(agent.spawnLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { file: string; args: string[]; sync?: string; shell?: boolean });
    const programs = new Set(spawned.map((s) => s.file));
    expect([...programs]).toEqual(expect.arrayContaining(['docker-compose', 'docker', 'flock']));
    for (const s of spawned) {
      expect(/(^|\/)(sh|bash|dash|zsh)$/.test(s.file), JSON.stringify(s)).toBe(false);
      expect(s.args.slice(1, 2)).not.toEqual(['-c']);
      expect(s.shell ?? false).toBe(false);
    }
  });
});
