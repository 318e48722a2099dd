/**
 * Compose `build:` in a source deploy (issue 13): a repository with a Dockerfile (`FROM scratch` +
 * the host's static busybox) is built by the real Docker Engine on the agent's host, in the
 * checkout of the commit, and the built image runs through the service's pipeline (pull says
 * "built on this host"). The same commit and inputs reuse the build; a new push builds again; a
 * failing build fails `prepare` with docker's last lines and the serving version keeps serving.
 * A push announced by GitHub's signed webhook builds and deploys the new commit. A Compose deploy
 * of a service with only `build` is refused. Docker is required: without it the
 * test fails (never skips).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Deployment } from '../src/contracts/domain.js';
import { closeDockerHarness } from './helpers/docker-agent.js';
import { requireDockerAndRegistry } from './helpers/docker-images.js';
import { commit, git } from './helpers/git-repos.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv } from './helpers/processes.js';

const SECRET = 'build-hook-secret-0123456789';
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as { name: string; examples: Record<string, unknown>[] }[];
const pushExample = examples.find((e) => e.name === 'push')!.examples.find((p) => p.ref === 'refs/heads/master' && p.deleted === false)!;
const COMPOSE = stringify({
  services: {
    web: {
      build: { context: 'app', dockerfile: 'Dockerfile', args: { GREETING: 'hello from a build arg' } },
      'x-denv': { health: { path: '/healthz', timeout: '5s' } },
    },
  },
});
/** The image's own start command: busybox sh expands $PORT (the agent's) inside the container. */
const dockerfile = (copy = 'rootfs/') => [
  'FROM scratch',
  `COPY ${copy} /`,
  'ARG GREETING',
  'RUN ["/bin/busybox", "sh", "-c", "echo \\"$GREETING\\" > /www/greeting"]',
  'CMD ["/bin/busybox", "sh", "-c", "exec /bin/busybox httpd -f -p 127.0.0.1:$PORT -h /www"]',
  '',
].join('\n');

/**
 * A repository in `work` whose first commit serves `index` (the busybox binary, the Dockerfile, the
 * Compose file); that commit's id. A unique file makes this run's layers its own (another run's
 * clean-up cannot remove them).
 */
async function newRepository(root: string, work: string, index: string): Promise<string> {
  await git(root, 'init', '-q', '-b', 'main', work);
  mkdirSync(join(work, 'app', 'rootfs', 'bin'), { recursive: true });
  copyFileSync('/bin/busybox', join(work, 'app', 'rootfs', 'bin', 'busybox'));
  await git(work, 'add', 'app/rootfs/bin/busybox');
  return commit(work, { 'compose.yaml': COMPOSE, 'app/Dockerfile': dockerfile(), 'app/rootfs/www/index.html': index, 'app/rootfs/www/healthz': 'ok', 'app/rootfs/www/run-id': randomUUID() }, index);
}

type Stage = { name: string; status: string; detail?: string };
const prepareOf = (dep: Deployment) => dep.phases.find((p) => p.name === 'prepare')!;
const pipelineOf = (dep: Deployment) => (prepareOf(dep).evidence as { pipelines: Record<string, { state: string; stages: Stage[] }> }).pipelines.web!;
const get = async (url: string, path = '/') => (await fetch(new URL(path, url))).text();
const buildOf = (dep: Deployment) => (prepareOf(dep).evidence as { builds: Record<string, Record<string, unknown>> }).builds.web!;

describe('source deploys build Compose build: with Docker', () => {
  let h: Harness;
  const root = mkdtempSync(join(tmpdir(), 'denv-build-image-test-'));
  const work = join(root, 'work');
  const bare = join(root, 'app.git');
  const envDir = mkdtempSync('/dev/shm/denv-test-env-');
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await requireDockerAndRegistry();
    ids.one = await newRepository(root, work, 'one');
    await git(root, 'clone', '-q', '--bare', work, bare);
    writeFileSync(join(root, 'agent.yaml'), stringify({ require_signature: false, network: 'host', env_dir: envDir }));
    h = await startHarness({ cp: { allowFileRepos: true }, agentConfig: join(root, 'agent.yaml') });
    expect((await h.api.post('/v1/projects', { name: 'built', repo: `file://${bare}`, branch: 'main' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await closeDockerHarness(h, root, envDir);
    // The images this run built (labelled with its commits).
    for (const sha of Object.values(ids)) {
      const images = execFileSync('docker', ['images', '-q', '--filter', `label=dev.denv.build.commit=${sha}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
      if (images.length > 0) execFileSync('docker', ['rmi', '--force', ...new Set(images)], { stdio: 'ignore' });
    }
  });

  async function deploy(): Promise<{ dep: Deployment; env: { id: string; endpoints: { url: string }[] } }> {
    const res = await h.api.post('/v1/projects/built/deploy', { env: 'production', source: { ref: 'main' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 120_000);
    return { dep, env: (await h.api.get(`/v1/envs/${res.body.env.id}`)).body };
  }

  it('builds the image in the checkout of the commit, with its build args, and runs it; the pull stage reports the build', async () => {
    const { dep, env } = await deploy();
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(await get(env.endpoints[0]!.url)).toBe('one');
    expect((await get(env.endpoints[0]!.url, '/greeting')).trim()).toBe('hello from a build arg');
    const pipeline = pipelineOf(dep);
    expect(pipeline.state).toBe('success');
    const pull = pipeline.stages.find((s) => s.name === 'pull')!;
    expect(pull.status).toBe('ok');
    expect(pull.detail).toMatch(new RegExp(`^built on this host from ${ids.one!.slice(0, 12)} in \\d+ ms$`));
    const build = buildOf(dep);
    expect(build).toMatchObject({ failed: false, commit: ids.one, cached: false, tag: expect.stringMatching(/^denv-build\/web:[0-9a-f]{24}$/), image_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    // The container runs exactly the image the build made (by id).
    const imageId = execFileSync('docker', ['image', 'inspect', '--format', '{{.Id}}', build.tag as string], { encoding: 'utf8' }).trim();
    expect(imageId).toBe(build.image_id);
    const containers = execFileSync('docker', ['ps', '-q', '--filter', `ancestor=${imageId}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(containers).toHaveLength(1);
    // What docker printed went to the control plane as it came, and is kept with the deployment.
    const events = (await h.api.get(`/v1/events?subject=dep:${dep.id}&limit=500`)).body.items as { type: string; data: { service: string; lines: string[] } }[];
    const printed = events.filter((e) => e.type === 'deployment.output').flatMap((e) => (expect(e.data.service).toBe('web'), e.data.lines));
    expect(printed.some((l) => /FROM scratch/i.test(l))).toBe(true);
    expect(printed.some((l) => /Successfully built|writing image/i.test(l))).toBe(true);
    // `denv deployment watch` shows those lines under the phase (the stream replays them, then ends).
    const watch = spawnDenv(['--url', h.cp.url, '--token', h.cp.adminToken, 'deployment', 'watch', dep.id]);
    expect(await new Promise<number | null>((resolve) => watch.proc.once('close', resolve))).toBe(0);
    expect(watch.output()).toMatch(/^ {6}web \| .*FROM scratch/im);
  });

  it('the same commit again reuses the build (cached) and leaves the running container alone (no_op)', async () => {
    const { dep, env } = await deploy();
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const pipeline = pipelineOf(dep);
    expect(buildOf(dep)).toMatchObject({ failed: false, commit: ids.one, cached: true });
    expect(pipeline.state).toBe('no_op');
    expect(pipeline.stages.find((s) => s.name === 'idempotency')!.detail).toBe('same digest and env, already healthy');
    expect(await get(env.endpoints[0]!.url)).toBe('one');
  });

  it('a push announced by GitHub\'s signed webhook builds the new commit: the env goes upgrading, then running, and the new commit answers', async () => {
    expect((await h.api.req('PATCH', '/v1/projects/built', { auto_upgrade: true, webhook_secret: SECRET })).status).toBe(200);
    ids.two = await commit(work, { 'app/rootfs/www/index.html': 'two' }, 'two');
    await git(work, 'push', '-q', bare, 'main');
    // GitHub's own push payload (@octokit/webhooks-examples), pointed at this commit, signed as GitHub signs it.
    const body = JSON.stringify({ ...pushExample, ref: 'refs/heads/main', after: ids.two });
    const res = await fetch(`${h.cp.url}/v1/hooks/github?project=built`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': await sign(SECRET, body) },
      body,
    });
    const started = (await res.json()) as { deployment: string; env: string };
    expect(res.status, JSON.stringify(started)).toBe(202);
    const seen = new Set<string>();
    for (;;) {
      seen.add((await h.api.get(`/v1/envs/${started.env}`)).body.status);
      const d = (await h.api.get(`/v1/deployments/${started.deployment}`)).body as Deployment;
      if (['succeeded', 'failed', 'rolled_back'].includes(d.status)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const dep = await h.api.finished(started.deployment);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect([...seen]).toContain('upgrading');
    const env = (await h.api.get(`/v1/envs/${started.env}`)).body;
    expect(env.status).toBe('running');
    expect(buildOf(dep)).toMatchObject({ failed: false, commit: ids.two, cached: false });
    expect(await get(env.endpoints[0]!.url)).toBe('two');
    const events = (await h.api.get(`/v1/events?subject=dep:${dep.id}`)).body.items as { type: string; data: unknown }[];
    expect(events.find((e) => e.type === 'deployment.source')?.data).toEqual({ sha: ids.two, branch: 'main', repo: `file://${bare}` });
  });

  it('a build that fails fails prepare with docker\'s last lines; the serving version keeps serving', async () => {
    ids.three = await commit(work, { 'app/Dockerfile': dockerfile('no-such-dir/') }, 'broken');
    await git(work, 'push', '-q', bare, 'main');
    const { dep, env } = await deploy();
    expect(dep.error).toMatch(/^prepare: web: docker build exited with code 1:\n[\s\S]*no-such-dir/);
    expect(dep.status).toBe('rolled_back');
    expect(buildOf(dep)).toMatchObject({ failed: true, commit: ids.three });
    expect(await get(env.endpoints[0]!.url)).toBe('two');
  });

  it('a Compose deploy of a service with only build is refused, naming the service; nothing is recorded', async () => {
    const before = (await h.api.get('/v1/deployments')).body.items.length;
    const res = await h.api.post('/v1/projects/built/deploy', { env: 'production', compose: COMPOSE });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('services.web: has only build: images are built from the linked repository in a source deploy (denv deploy --source); or give an image');
    expect((await h.api.get('/v1/deployments')).body.items.length).toBe(before);
  });
});

describe('on a host that requires signatures, with a build key', () => {
  let h: Harness;
  const root = mkdtempSync(join(tmpdir(), 'denv-build-signed-test-'));
  const work = join(root, 'work');
  const envDir = mkdtempSync('/dev/shm/denv-test-env-');
  let sha = '';

  beforeAll(async () => {
    await requireDockerAndRegistry();
    sha = await newRepository(root, work, 'signed');
    // The operator's build key: its public half is among the host's trusted keys.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(join(root, 'build.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    writeFileSync(join(root, 'build.pub'), publicKey.export({ type: 'spki', format: 'pem' }) as string);
    writeFileSync(
      join(root, 'agent.yaml'),
      stringify({ require_signature: true, build_key: 'build.pem', trusted_keys: ['build.pub'], allow: { repositories: ['denv-build/'], services: ['web'] }, network: 'host', env_dir: envDir }),
    );
    h = await startHarness({ cp: { allowFileRepos: true }, agentConfig: join(root, 'agent.yaml') });
    expect((await h.api.post('/v1/projects', { name: 'signedbuild', repo: `file://${work}`, branch: 'main' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await closeDockerHarness(h, root, envDir);
    const images = execFileSync('docker', ['images', '-q', '--filter', `label=dev.denv.build.commit=${sha}`], { encoding: 'utf8' }).split('\n').filter(Boolean);
    if (images.length > 0) execFileSync('docker', ['rmi', '--force', ...new Set(images)], { stdio: 'ignore' });
  });

  it('signs what it built with its build key: admit and verify pass as for any signed deploy, and the image runs', async () => {
    const res = await h.api.post('/v1/projects/signedbuild/deploy', { env: 'production', source: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 120_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const stages = Object.fromEntries(pipelineOf(dep).stages.map((s) => [s.name, s.status]));
    expect(stages).toMatchObject({ admit: 'ok', verify: 'ok', pull: 'ok', recreate: 'ok', health: 'ok' });
    expect(buildOf(dep)).toMatchObject({ failed: false, commit: sha });
    const env = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body;
    expect(await get(env.endpoints[0].url)).toBe('signed');
  });
});

