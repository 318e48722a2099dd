/**
 * Signed image deploys through the control plane (DESIGN §7): `POST /v1/projects/{p}/deploy
 * {compose, envelope}` relays the envelope in env.create, the agent (a real process with its
 * agent.yaml) runs seed 004's pipeline on a real engine, and the `prepare` phase's evidence
 * carries each image service's stage statuses and terminal state. A project can require signed
 * deploys. Needs the engine and the registry (`.ci/docker-up`); fails without them.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Deployment } from '../src/contracts/domain.js';
import { buildTestImages, type TestImage, type TestImages } from './helpers/docker-images.js';
import { closeDockerHarness } from './helpers/docker-agent.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from './helpers/envelopes.js';
import { startHarness, type Harness } from './helpers/harness.js';

const SECRET = `cp-secret-${randomUUID()}`;
let h: Harness;
let images: TestImages;
let key: TestKey;
const dir = mkdtempSync(join(tmpdir(), 'denv-cp-docker-'));
const envDir = mkdtempSync('/dev/shm/denv-test-env-');

const compose = (image: TestImage) => ({
  services: { web: { image: image.repository, volumes: ['data:/data'], 'x-denv': { health: { path: '/healthz', timeout: '5s' } } } },
  volumes: { data: {} },
});
// On a host that requires signatures the mounts come from the envelope's `run` (the Compose file may repeat them).
const envelope = (image: TestImage, signer = key, extra: Record<string, unknown> = {}) =>
  envelopeOf(payloadOf({ service: 'web', repository: image.repository, digest: image.digest, host: 'test-host', env: { GREETING: SECRET }, run: { volumes: [{ source: 'data', target: '/data' }] }, ...extra }), signer);

async function deploy(body: Record<string, unknown>): Promise<Deployment> {
  const res = await h.api.post('/v1/projects/signed/deploy', { env: 'production', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return h.api.finished(res.body.deployment.id, 90_000);
}
const phase = (dep: Deployment, name: string) => dep.phases.find((p) => p.name === name)!;
const text = async (url: string) => (await fetch(url)).text();

beforeAll(async () => {
  images = await buildTestImages();
  key = testKey();
  writeFileSync(join(dir, 'ci.pub'), key.publicPem);
  writeFileSync(
    join(dir, 'agent.yaml'),
    stringify({ trusted_keys: ['ci.pub'], allow: { repositories: ['127.0.0.1:5000/denv-test/'], services: ['web'] }, network: 'host', env_dir: envDir }),
  );
  h = await startHarness({ agentConfig: join(dir, 'agent.yaml') });
}, 180_000);

afterAll(() => closeDockerHarness(h, dir, envDir));

describe('signed deploys through the control plane', () => {
  it('the host reports the docker runtime; a project requiring signatures refuses a deploy without an envelope', async () => {
    const hosts = (await h.api.get('/v1/hosts')).body.items;
    expect(hosts[0].facts.runtimes).toEqual(['process', 'docker']);
    const created = await h.api.post('/v1/projects', { name: 'signed', require_signed: true });
    expect(created.status).toBe(201);
    expect(created.body.require_signed).toBe(true);
    const unsigned = await h.api.post('/v1/projects/signed/deploy', { compose: compose(images.v1) });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.error.message).toMatch(/requires signed deploys/);
    const wrongService = await h.api.post('/v1/projects/signed/deploy', {
      compose: compose(images.v1),
      envelope: envelopeOf(payloadOf({ service: 'api', repository: images.v1.repository, digest: images.v1.digest, host: 'test-host' }), key),
    });
    expect(wrongService.status).toBe(400);
    expect(wrongService.body.error.message).toMatch(/signs service "api", which the Compose file does not have/);
  });

  it('relays the envelope; prepare evidence holds the stage statuses and terminal state; the app answers', async () => {
    const dep = await deploy({ compose: compose(images.v1), envelope: envelope(images.v1) });
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(phase(dep, 'prepare').evidence).toMatchObject({
      outcome: 'healthy',
      pipelines: {
        web: {
          state: 'success',
          stages: [
            { name: 'admit', status: 'ok' },
            { name: 'verify', status: 'ok' },
            { name: 'idempotency', status: 'ok' },
            { name: 'pull', status: 'ok' },
            { name: 'env', status: 'ok' },
            { name: 'recreate', status: 'ok' },
            { name: 'health', status: 'ok' },
            { name: 'proxy', status: 'skipped' },
            { name: 'dns', status: 'skipped' },
            { name: 'persist', status: 'ok' },
          ],
        },
      },
    });
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    expect(env.status).toBe('running');
    expect(await text(env.endpoints[0].url)).toBe('v1');
    expect(await text(`${env.endpoints[0].url}/cgi-bin/greeting`)).toBe(SECRET);
    // The dataset is mounted at the Compose target, and the deploy's snapshot froze the container (docker pause).
    expect(await text(`${env.endpoints[0].url}/cgi-bin/data?kept-in-the-dataset`)).toBe('kept-in-the-dataset');
    expect(phase(dep, 'snapshot').evidence).toMatchObject({ datasets: ['data'], consistent: true });
    expect((phase(dep, 'snapshot').evidence as { frozen_for: number }).frozen_for).toBeGreaterThan(0);
  });

  it('a new signed digest replaces the container in place on the same port', async () => {
    const before = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production');
    const dep = await deploy({ compose: compose(images.v2), envelope: envelope(images.v2) });
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect((phase(dep, 'prepare').evidence as { pipelines: { web: { state: string } } }).pipelines.web.state).toBe('success');
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    expect(env.endpoints[0].url).toBe(before.endpoints[0].url);
    expect(await text(env.endpoints[0].url)).toBe('v2');
    expect(await text(`${env.endpoints[0].url}/cgi-bin/data`)).toBe('kept-in-the-dataset');
  });

  /** The env as the API shows it, and the id of the container serving it. */
  const envNow = async (id: string) => ({ env: (await h.api.get(`/v1/envs/${id}`)).body, container: execFileSync('docker', ['ps', '-q', '--filter', `label=dev.denv.slot=${id}/web`], { encoding: 'utf8' }).trim() });

  it('a forged envelope fails at verify on the host: the deployment is failed, the env untouched (nothing was rolled back)', async () => {
    const envId = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production').id;
    const before = await envNow(envId);
    const dep = await deploy({ compose: compose(images.v1), envelope: envelope(images.v1, testKey()) });
    expect(dep.status).toBe('failed');
    expect(dep.error).toMatch(/^start: web: verify: signature does not verify/);
    const pipeline = (phase(dep, 'prepare').evidence as { pipelines: { web: { state: string; stages: { name: string; status: string }[] } } }).pipelines.web;
    expect(pipeline.state).toBe('failure');
    expect(pipeline.stages.find((s) => s.name === 'verify')!.status).toBe('failed');
    expect(phase(dep, 'verdict').evidence).toMatchObject({ changed: false, refused: { web: 'verify' }, current_version: before.env.current_version });
    const after = await envNow(envId);
    expect(after.env).toMatchObject({ status: 'running', current_version: before.env.current_version, endpoints: before.env.endpoints });
    expect(after.container).toBe(before.container);
    expect(await text(after.env.endpoints[0].url)).toBe('v2');
  });

  it('a replayed envelope is refused at admit: the deployment is failed, the env untouched (issue 9: it was rolled_back)', async () => {
    const envId = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production').id;
    const signed = envelope(images.v1);
    const first = await deploy({ compose: compose(images.v1), envelope: signed });
    expect(first.status, first.error ?? '').toBe('succeeded');
    const before = await envNow(envId);
    expect(await text(before.env.endpoints[0].url)).toBe('v1');
    const replay = await deploy({ compose: compose(images.v1), envelope: signed });
    expect(replay.status).toBe('failed');
    expect(replay.error).toMatch(/^start: web: admit: replayed/);
    expect(phase(replay, 'verdict').evidence).toMatchObject({ changed: false, refused: { web: 'admit' }, current_version: before.env.current_version });
    const after = await envNow(envId);
    expect(after.env).toMatchObject({ status: 'running', current_version: before.env.current_version, endpoints: before.env.endpoints });
    expect(after.container).toBe(before.container);
    expect(await text(after.env.endpoints[0].url)).toBe('v1');
    // Back to v2 for the tests below.
    const v2 = await deploy({ compose: compose(images.v2), envelope: envelope(images.v2) });
    expect(v2.status, v2.error ?? '').toBe('succeeded');
  });

  it('what runs comes from the envelope: a Compose entrypoint or command it does not sign, or another project, is refused at admit naming the field; the env is untouched', async () => {
    const envId = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production').id;
    const before = await envNow(envId);
    const leaky = compose(images.v1);
    const withEntrypoint = { ...leaky, services: { web: { ...leaky.services.web, entrypoint: ['/bin/busybox', 'sh', '-c', 'echo $GREETING'] } } };
    const refused = await deploy({ compose: withEntrypoint, envelope: envelope(images.v1) });
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/^start: web: admit: run\.entrypoint: the Compose file sets it and the envelope does not/);
    expect(refused.error).not.toContain('GREETING');
    const otherCommand = { ...leaky, services: { web: { ...leaky.services.web, command: ['/bin/busybox', 'httpd', '-f'] } } };
    const differs = await deploy({ compose: otherCommand, envelope: envelope(images.v1, key, { run: { command: ['/bin/busybox', 'true'], volumes: [{ source: 'data', target: '/data' }] } }) });
    expect(differs.error).toMatch(/^start: web: admit: run\.command: the Compose file sets it differently from the envelope/);
    const elsewhere = await deploy({ compose: compose(images.v1), envelope: envelope(images.v1, key, { scope: { project: 'another' } }) });
    expect(elsewhere.error).toMatch(/^start: web: admit: scope\.project: the envelope is for project "another", this deploy is for "signed"/);
    const after = await envNow(envId);
    expect(after.env).toMatchObject({ status: 'running', current_version: before.env.current_version });
    expect(after.container).toBe(before.container);
    // An envelope bound to this project and env is deployed.
    const bound = await deploy({ compose: compose(images.v2), envelope: envelope(images.v2, key, { scope: { project: 'signed', env: 'production' } }) });
    expect(bound.status, bound.error ?? '').toBe('succeeded');
  });

  it('the Compose file must say what the envelope signs: another repository, another pinned digest or an environment value the envelope does not bind is refused at admit, naming the setting but never a value; the env is untouched', async () => {
    const envId = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production').id;
    const before = await envNow(envId);
    const web = compose(images.v1).services.web;
    const withWeb = (extra: Record<string, unknown>) => ({ ...compose(images.v1), services: { web: { ...web, ...extra } } });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['another repository', withWeb({ image: `${images.v1.repository}-elsewhere` }), /^start: web: admit: the Compose image's repository "[^"]+-elsewhere" is not the signed repository "[^"]+"$/],
      ['another pinned digest', withWeb({ image: images.v2.ref }), new RegExp(`^start: web: admit: the Compose image pins ${images.v2.digest}, the envelope signs ${images.v1.digest}$`)],
      ['a value the envelope signs differently', withWeb({ environment: { GREETING: 'not-what-was-signed' } }), /^start: web: admit: environment GREETING in the Compose file is not bound by the envelope with the same value$/],
      ['a variable the envelope does not sign', withWeb({ environment: { GREETING: SECRET, EXTRA: 'unsigned-extra' } }), /^start: web: admit: environment EXTRA in the Compose file is not bound by the envelope with the same value$/],
    ];
    for (const [what, body, error] of cases) {
      const dep = await deploy({ compose: body, envelope: envelope(images.v1) });
      expect(dep.status, what).toBe('failed');
      expect(dep.error, what).toMatch(error);
      expect(dep.error, what).not.toMatch(/not-what-was-signed|unsigned-extra/);
      expect(JSON.stringify(dep), what).not.toContain(SECRET);
      expect(phase(dep, 'verdict').evidence, what).toMatchObject({ changed: false, refused: { web: 'admit' } });
    }
    const after = await envNow(envId);
    expect(after.env).toMatchObject({ status: 'running', current_version: before.env.current_version, endpoints: before.env.endpoints });
    expect(after.container).toBe(before.container);
    expect(await text(after.env.endpoints[0].url)).toBe('v2');
    // Saying exactly what was signed (the digest pinned, the signed value) is deployed.
    const agreeing = await deploy({ compose: withWeb({ image: images.v1.ref, environment: { GREETING: SECRET } }), envelope: envelope(images.v1) });
    expect(agreeing.status, agreeing.error ?? '').toBe('succeeded');
    expect(await text(`${(await envNow(envId)).env.endpoints[0].url}/cgi-bin/greeting`)).toBe(SECRET);
    const back = await deploy({ compose: compose(images.v2), envelope: envelope(images.v2) });
    expect(back.status, back.error ?? '').toBe('succeeded');
  });

  it('an unsigned image relayed by the control plane (its project does not require signatures) is refused by the agent at admit: nothing is pulled or started', async () => {
    expect((await h.api.post('/v1/projects', { name: 'unsigned' })).status).toBe(201);
    const res = await h.api.post('/v1/projects/unsigned/deploy', { env: 'production', compose: compose(images.v2) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 90_000);
    expect(dep.status).toBe('failed');
    expect(dep.error).toBe('start: web: admit: no envelope: this host requires a signed envelope for image services (require_signature)');
    const pipeline = (phase(dep, 'prepare').evidence as { pipelines: { web: { state: string; stages: { name: string; status: string }[] } } }).pipelines.web;
    expect(pipeline.state).toBe('failure');
    expect(pipeline.stages.filter((s) => s.status !== 'skipped').map((s) => [s.name, s.status])).toEqual([['admit', 'failed']]);
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.denv.slot=${dep.env}/web`], { encoding: 'utf8' }).trim()).toBe('');
    expect((await h.api.get(`/v1/envs/${dep.env}`)).body).toMatchObject({ status: 'failed', current_version: null });
  });

  it('an image failing health is rolled back on the host (failure_rolled_back) and the deployment rolls back', async () => {
    const dep = await deploy({ compose: compose(images.unhealthy), envelope: envelope(images.unhealthy) });
    expect(dep.status).toBe('rolled_back');
    expect(dep.error).toMatch(/^health: web: health: /);
    expect((phase(dep, 'prepare').evidence as { pipelines: { web: { state: string } } }).pipelines.web.state).toBe('failure_rolled_back');
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    expect(env.status).toBe('running');
    expect(await text(env.endpoints[0].url)).toBe('v2');
  });

  it('stop removes the container and keeps the verified deploy; start brings that deploy back', async () => {
    const env = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production');
    const act = async (action: string) => {
      const res = await h.api.post(`/v1/envs/${env.id}/${action}`);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const done = await h.api.finished(res.body.deployment.id, 60_000);
      expect(done.status, done.error ?? '').toBe('succeeded');
    };
    await act('stop');
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.denv.slot=${env.id}/web`], { encoding: 'utf8' }).trim()).toBe('');
    await expect(fetch(env.endpoints[0].url)).rejects.toThrow();
    await act('start');
    expect(await text(env.endpoints[0].url)).toBe('v2');
    expect(await text(`${env.endpoints[0].url}/cgi-bin/data`)).toBe('kept-in-the-dataset');
  });

  it('keeps the secret out of events and evidence; destroying the env removes its container', async () => {
    const env = (await h.api.get('/v1/envs?limit=50')).body.items.find((e: { name: string }) => e.name === 'production');
    const deployments = (await h.api.get(`/v1/deployments?env=${env.id}&limit=50`)).body.items;
    const events = (await h.api.get(`/v1/events?subject=env:${env.id}&limit=1000`)).body.items;
    const full = await Promise.all(deployments.map(async (d: { id: string }) => (await h.api.get(`/v1/deployments/${d.id}`)).body));
    expect(JSON.stringify({ full, events, env })).not.toContain(SECRET);
    expect(h.agent.output()).not.toContain(SECRET);

    const slotContainers = () => execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.denv.slot=${env.id}/web`], { encoding: 'utf8' }).trim();
    expect(slotContainers()).not.toBe('');
    const destroy = await h.api.req('DELETE', `/v1/envs/${env.id}`);
    expect(destroy.status, JSON.stringify(destroy.body)).toBe(202);
    const done = await h.api.finished(destroy.body.deployment.id, 60_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(slotContainers()).toBe('');
  });

  it('one envelope deployed to 20 envs at once (no slot lock orders them) runs in exactly one; the 19 others are refused as replays, changing nothing', async () => {
    const signed = envelope(images.v1);
    const started = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await h.api.post('/v1/projects/signed/deploy', { env: `race-${i}`, compose: compose(images.v1), envelope: signed });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        return res.body.deployment.id as string;
      }),
    );
    // 20 deployments at once on one PGlite and one agent: ~5 s alone, ~40–60 s on a loaded 2-core
    // machine (measured with two busy loops beside it). The assertion is about outcomes, not time.
    const done = await Promise.all(started.map((id) => h.api.finished(id, 170_000)));
    const won = done.filter((d) => d.status === 'succeeded');
    expect(won, done.map((d) => `${d.status}: ${d.error}`).join('\n')).toHaveLength(1);
    for (const d of done.filter((x) => x !== won[0])) {
      expect(d.status).toBe('failed');
      expect(d.error).toMatch(/^start: web: (admit|verify): replayed: nonce "/);
      expect(execFileSync('docker', ['ps', '-aq', '--filter', `label=dev.denv.slot=${d.env}/web`], { encoding: 'utf8' }).trim()).toBe('');
    }
    expect(await text((await h.api.get(`/v1/envs/${won[0]!.env}`)).body.endpoints[0].url)).toBe('v1');
  }, 180_000);
});
