/**
 * Several image services in one env (DESIGN "Contract details", siblings; issue 9 point 3): one
 * deploy through the control plane carries one signed envelope per image service; the agent (a
 * real process, `network: bridge`, the default) puts the env's containers on one Docker network
 * (`denv-<env id>`) where service names resolve, publishes each on 127.0.0.1 at the port it
 * allocated, and gives each its siblings' `DENV_<S>_HOST/PORT`, filling `${DENV_…}` references.
 * Needs the engine (started with the CI daemon's flags) and the registry (`.ci/docker-up`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Deployment } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { buildHttpdImage, requireDockerAndRegistry, type TestImage } from './helpers/docker-images.js';
import { closeDockerHarness } from './helpers/docker-agent.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from './helpers/envelopes.js';
import { startHarness, type Harness } from './helpers/harness.js';

let h: Harness;
let key: TestKey;
let web: TestImage;
let api: TestImage;
/** The env of the two-service deploy. */
let pairEnv = '';
const dir = mkdtempSync(join(tmpdir(), 'denv-network-'));
const envDir = mkdtempSync('/dev/shm/denv-test-env-');

/** `api` answers what it fetches from $UPSTREAM, which names its sibling through `${DENV_WEB_…}`. */
const CGI_UPSTREAM = '#!/bin/busybox sh\nprintf "Content-Type: text/plain\\r\\n\\r\\n"\n/bin/busybox timeout 3 /bin/busybox wget -qO- "$UPSTREAM"\n';
const UPSTREAM = 'http://${DENV_WEB_HOST}:${DENV_WEB_PORT}/';

const compose = {
  services: {
    web: { image: '', ports: ['8080'], 'x-denv': { health: { path: '/healthz', timeout: '10s' } } },
    api: { image: '', ports: ['9090'], environment: { UPSTREAM }, depends_on: { web: { condition: 'service_healthy' } } },
  },
};
const composeOf = () => ({ services: { web: { ...compose.services.web, image: web.repository }, api: { ...compose.services.api, image: api.repository } } });
const envelopeFor = (service: 'web' | 'api', signer = key) =>
  envelopeOf(payloadOf({ service, repository: (service === 'web' ? web : api).repository, digest: (service === 'web' ? web : api).digest, host: 'test-host', ...(service === 'api' ? { env: { UPSTREAM } } : {}) }), signer);

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const containerOf = (env: string, service: string) => docker('ps', '-q', '--filter', `label=dev.denv.slot=${env}/${service}`);
const text = async (url: string) => (await fetch(url)).text();

async function deploy(body: Record<string, unknown>): Promise<Deployment> {
  const res = await h.api.post('/v1/projects/pair/deploy', { env: 'production', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return h.api.finished(res.body.deployment.id, 120_000);
}

beforeAll(async () => {
  await requireDockerAndRegistry();
  [web, api] = [await buildHttpdImage('net-web', { 'index.html': 'hello from web', healthz: 'ok' }, { listen: 'any' }), await buildHttpdImage('net-api', { 'index.html': 'api', 'cgi-bin/upstream': CGI_UPSTREAM }, { listen: 'any' })];
  key = testKey();
  writeFileSync(join(dir, 'ci.pub'), key.publicPem);
  writeFileSync(join(dir, 'agent.yaml'), stringify({ trusted_keys: ['ci.pub'], allow: { repositories: ['127.0.0.1:5000/denv-test/'], services: ['web', 'api', 'hog'] }, env_dir: envDir }));
  h = await startHarness({ agentConfig: join(dir, 'agent.yaml'), cp: { liveStatusMs: 300 } });
  expect((await h.api.post('/v1/projects', { name: 'pair', require_signed: true })).status).toBe(201);
}, 180_000);

afterAll(() => closeDockerHarness(h, dir, envDir));

describe('image services of one env on one network', () => {
  it('a project requiring signatures refuses a deploy missing an image service envelope, or signing one twice, naming the path', async () => {
    const missing = await h.api.post('/v1/projects/pair/deploy', { compose: composeOf(), envelopes: [envelopeFor('web')] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/^envelopes: .*no envelope signs image service "api"/);
    const twice = await h.api.post('/v1/projects/pair/deploy', { compose: composeOf(), envelopes: [envelopeFor('web'), envelopeFor('web')] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/^envelopes\.1: a second envelope for service "web"/);
    const unknown = await h.api.post('/v1/projects/pair/deploy', { compose: composeOf(), envelopes: [envelopeFor('web'), envelopeFor('api'), envelopeOf(payloadOf({ service: 'db', repository: web.repository, digest: web.digest, host: 'test-host' }), key)] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^envelopes\.2: it signs service "db"/);
  });

  it('deploys both with one envelope each, api after web (depends_on); they reach each other by service name; each is published on 127.0.0.1; a refused web changes nothing', async () => {
    const dep = await deploy({ compose: composeOf(), envelopes: [envelopeFor('api'), envelopeFor('web')] });
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const pipelines = (dep.phases.find((p) => p.name === 'prepare')!.evidence as { pipelines: Record<string, { state: string }> }).pipelines;
    expect(pipelines.web!.state).toBe('success');
    expect(pipelines.api!.state).toBe('success');

    pairEnv = dep.env;
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    const url = (service: string) => env.endpoints.find((e: { service: string }) => e.service === service).url as string;
    expect(url('web')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await text(url('web'))).toBe('hello from web');

    // The env's network, made and labelled by the agent; both containers on it.
    const network = JSON.parse(docker('network', 'inspect', `denv-${env.id}`))[0];
    expect(network.Labels).toMatchObject({ 'dev.denv.scope': env.id });
    const apiContainer = containerOf(env.id, 'api');
    expect(apiContainer).not.toBe('');
    // By name, from inside the api container, at web's container port.
    expect(docker('exec', apiContainer, '/bin/busybox', 'timeout', '3', '/bin/busybox', 'wget', '-qO-', 'http://web:8080/')).toBe('hello from web');
    // The siblings' variables, and the signed `${DENV_WEB_…}` reference filled in on the host.
    const envOf = docker('exec', apiContainer, '/bin/busybox', 'env').split('\n');
    expect(envOf).toEqual(expect.arrayContaining(['DENV_WEB_HOST=web', 'DENV_WEB_PORT=8080', 'DENV_API_HOST=api', 'DENV_API_PORT=9090', 'UPSTREAM=http://web:8080/', 'PORT=9090']));
    expect(await text(`${url('api')}/cgi-bin/upstream`)).toBe('hello from web');
    // depends_on web: service_healthy — api's container started only after web's pipeline ended healthy.
    const startedAt = (service: string) => Date.parse(JSON.parse(docker('inspect', containerOf(env.id, service)))[0].State.StartedAt);
    expect(startedAt('api')).toBeGreaterThan(startedAt('web'));

    // web's envelope forged: web is refused at verify, api (which waits for web) is not deployed; nothing changed.
    const before = { web: containerOf(env.id, 'web'), api: apiContainer, version: env.current_version };
    const refused = await deploy({ compose: composeOf(), envelopes: [envelopeFor('web', testKey()), envelopeFor('api')] });
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/^start: web: verify: .*; api: not deployed: web did not become healthy \(depends_on\)$/);
    expect(refused.phases.find((p) => p.name === 'verdict')!.evidence).toMatchObject({ changed: false, refused: { web: 'verify' } });
    const after = (await h.api.get(`/v1/envs/${env.id}`)).body;
    expect(after).toMatchObject({ status: 'running', current_version: before.version });
    expect({ web: containerOf(env.id, 'web'), api: containerOf(env.id, 'api'), version: after.current_version }).toEqual(before);
  }, 150_000);

  it('a container gets its limits, restart policy, stop signal and grace period; an OOM kill shows as OOMKilled in live status', async () => {
    expect((await h.api.post('/v1/projects', { name: 'limits' })).status).toBe(201);
    // The hog waits until the test says the deploy is over (it creates /go), then becomes one
    // process reading 64 MB into one buffer under a 16 MB limit: the kernel can only kill it.
    const command = ['/bin/busybox', 'sh', '-c', 'until [ -e /go ]; do /bin/busybox sleep 0.2; done; exec /bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1'];
    const res = await h.api.post('/v1/projects/limits/deploy', {
      env: 'production',
      compose: { services: { hog: { image: api.repository, mem_limit: '16m', cpus: 0.5, pids_limit: 64, restart: 'no', stop_signal: 'SIGINT', stop_grace_period: '3s' } } },
      envelope: envelopeOf(payloadOf({ service: 'hog', repository: api.repository, digest: api.digest, host: 'test-host', run: { command } }), key),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 120_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const id = containerOf(dep.env, 'hog');
    const inspect = JSON.parse(docker('inspect', id))[0];
    expect(inspect.HostConfig).toMatchObject({ Memory: 16 * 1024 * 1024, MemorySwap: 16 * 1024 * 1024, NanoCpus: 500_000_000, PidsLimit: 64, RestartPolicy: { Name: 'no' } });
    expect(inspect.Config.StopSignal).toBe('SIGINT');
    expect(inspect.Config.Labels['com.docker.compose.project']).toMatch(/^denv-/);
    docker('exec', id, '/bin/busybox', 'touch', '/go');
    const workload = await waitFor(
      async () => {
        const { body } = await h.api.get(`/v1/envs/${dep.env}/status`);
        const w = body.live_status?.workloads.find((x: { service: string }) => x.service === 'hog');
        return w?.last_exit === 'OOMKilled' ? w : undefined;
      },
      60_000,
      'live status showing the hog OOMKilled',
    );
    expect(workload).toMatchObject({ runtime: 'docker', state: 'exited', last_exit: 'OOMKilled' });
    expect(JSON.parse(docker('inspect', id))[0].State.OOMKilled).toBe(true);
  }, 150_000);

  it('a process service finds an image sibling at 127.0.0.1 and its published port', async () => {
    expect((await h.api.post('/v1/projects', { name: 'mixed' })).status).toBe(201);
    const app = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
    const res = await h.api.post('/v1/projects/mixed/deploy', {
      env: 'production',
      compose: {
        services: {
          web: composeOf().services.web,
          app: { command: ['node', app], environment: { VERSION: 'app-1', UPSTREAM: 'http://${DENV_WEB_HOST}:${DENV_WEB_PORT}/' }, 'x-denv': { health: { path: '/healthz' } } },
        },
      },
      envelope: envelopeFor('web'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 120_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
    const url = (service: string) => env.endpoints.find((e: { service: string }) => e.service === service).url as string;
    expect(await text(`${url('app')}/upstream`)).toBe('hello from web');
    // The image service sees the process sibling at its host port (reachable from a container only with host networking).
    const envOf = docker('exec', containerOf(dep.env, 'web'), '/bin/busybox', 'env').split('\n');
    expect(envOf).toEqual(expect.arrayContaining(['DENV_APP_HOST=127.0.0.1', `DENV_APP_PORT=${new URL(url('app')).port}`]));
  }, 150_000);

  it('destroying the env removes its containers and its network', async () => {
    const env = (await h.api.get(`/v1/envs/${pairEnv}`)).body;
    const destroy = await h.api.req('DELETE', `/v1/envs/${env.id}`);
    expect(destroy.status, JSON.stringify(destroy.body)).toBe(202);
    const done = await h.api.finished(destroy.body.deployment.id, 60_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(containerOf(env.id, 'web')).toBe('');
    expect(docker('network', 'ls', '-q', '--filter', `name=^denv-${env.id}$`)).toBe('');
  });
});
