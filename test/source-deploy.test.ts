/**
 * Source deploys (issue 13, DESIGN "Source"): a project linked to a real git repository is
 * deployed at a branch, a tag or a commit. The control plane fetches it and reads the Compose file
 * at that commit; the agent (a real process) fetches the same commit and runs the process service
 * in its checkout. Over file:// (allowed: the control plane runs as under `denv dev`) and over
 * ssh:// against a real OpenSSH server with a deploy key, which the agent receives from the
 * control plane and the API never shows.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers/harness.js';
import { commit, git, GIT_TEST_ENV } from './helpers/git-repos.js';
import { runOrThrow } from '../src/lib/exec.js';
import { spawnDenv } from './helpers/processes.js';
import { startSshd, type Sshd } from './helpers/sshd.js';

const SERVER = `const http = require('node:http');
const fs = require('node:fs');
http.createServer((req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  res.end(fs.readFileSync('message.txt', 'utf8'));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;
const COMPOSE = 'services:\n  web:\n    command: ["node", "server.js"]\n    x-denv:\n      health:\n        path: /healthz\n';

describe('source deploys', () => {
  let h: Harness;
  let sshd: Sshd;
  const root = mkdtempSync(join(tmpdir(), 'denv-source-test-'));
  const work = join(root, 'work');
  const bare = join(root, 'app.git');
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await git(root, 'init', '-q', '-b', 'main', work);
    ids.one = await commit(work, { 'compose.yaml': COMPOSE, 'server.js': SERVER, 'message.txt': 'one' }, 'one');
    await git(work, 'tag', 'v1');
    await git(root, 'clone', '-q', '--bare', work, bare);
    h = await startHarness({ cp: { allowFileRepos: true } });
    sshd = await startSshd();
  });
  afterAll(async () => {
    await h?.close();
    await sshd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** Deploy `source` to env `env` of `project`; the finished deployment and what the env's endpoint answers. */
  async function deploySource(project: string, env: string, source: Record<string, string>) {
    const res = await h.api.post(`/v1/projects/${project}/deploy`, { env, source });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const envRow = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body;
    const answer = await (await fetch(envRow.endpoints[0].url)).text();
    return { dep, env: envRow, answer };
  }

  it('deploys the linked repository at its branch, a newer push, then a tag and a commit id; each runs in its commit\'s checkout', async () => {
    expect((await h.api.post('/v1/projects', { name: 'src', repo: `file://${bare}`, branch: 'main' })).status).toBe(201);
    const first = await deploySource('src', 'production', {});
    expect(first.answer).toBe('one');
    // The deployment names the commit it ran (seed 000's deployment.source).
    const events = (await h.api.get(`/v1/events?subject=dep:${first.dep.id}`)).body.items as { type: string; data: unknown }[];
    expect(events.find((e) => e.type === 'deployment.source')?.data).toEqual({ sha: ids.one, branch: 'main', repo: `file://${bare}` });

    ids.two = await commit(work, { 'message.txt': 'two' }, 'two');
    await git(work, 'push', '-q', bare, 'main');
    const second = await deploySource('src', 'production', { ref: 'main' });
    expect(second.answer).toBe('two');
    // The service's working dir is the checkout of exactly that commit.
    const state = JSON.parse(readFileSync(join(h.agentDir, 'envs', second.env.id, 'state.json'), 'utf8')) as { services: { version: string; pid: number | null; state: string }[] };
    const running = state.services.find((s) => s.version === second.env.current_version && s.state === 'running');
    expect(readlinkSync(`/proc/${running!.pid}/cwd`)).toMatch(new RegExp(`/source/${ids.two}$`));

    expect((await deploySource('src', 'production', { ref: 'v1' })).answer).toBe('one');
    expect((await deploySource('src', 'production', { ref: ids.two! })).answer).toBe('two');
  });

  it('a commit that fails health is rolled back: the previous commit\'s checkout serves again', async () => {
    await git(work, 'checkout', '-q', '-b', 'broken');
    await commit(work, { 'server.js': 'process.exit(3)\n' }, 'broken');
    await git(work, 'push', '-q', bare, 'broken');
    await git(work, 'checkout', '-q', 'main');
    const res = await h.api.post('/v1/projects/src/deploy', { env: 'production', source: { ref: 'broken' } });
    // The env's version before: the deploy changes it only when it succeeds.
    const before = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body;
    expect(before.current_version).toEqual(expect.any(String));
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status).not.toBe('succeeded');
    const env = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body;
    expect(env.current_version).toBe(before.current_version);
    expect(await (await fetch(env.endpoints[0].url)).text()).toBe('two');
  });

  it('an unknown ref, a commit without the Compose file, a repo that is not the linked one, and an unlinked project are refused before anything is recorded', async () => {
    const before = (await h.api.get('/v1/deployments?limit=500')).body.items.length;
    const bad = async (project: string, source: Record<string, string>) => (await h.api.post(`/v1/projects/${project}/deploy`, { env: 'x', source })).body.error;
    expect(await bad('src', { ref: 'nope' })).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('ref "nope" is not a branch, tag or commit') });
    expect(await bad('src', { ref: '--upload-pack=touch /tmp/x' })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^ref: /) });
    expect(await bad('src', { repo: 'https://example.com/other.git' })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^source\.repo: .* is not the repository linked to project "src"/) });
    expect((await h.api.post('/v1/projects', { name: 'plain' })).status).toBe(201);
    expect(await bad('plain', {})).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('has no linked repository') });
    expect((await h.api.req('PATCH', '/v1/projects/src', { compose_path: 'deploy/compose.yaml' })).status).toBe(200);
    expect(await bad('src', { ref: 'main' })).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('has no deploy/compose.yaml') });
    expect((await h.api.req('PATCH', '/v1/projects/src', { compose_path: 'compose.yaml' })).status).toBe(200);
    expect((await h.api.get('/v1/deployments?limit=500')).body.items.length).toBe(before);
  });

  it('links only addresses git may be given safely, and refs and paths that stay refs and paths', async () => {
    for (const [repo, message] of [
      ['ext::sh -c touch% /tmp/pwned', /^repo: /],
      ['-oProxyCommand=x', /^repo: a repository address cannot start with "-"/],
      ['https://user:secret@example.com/a.git', /^repo: credentials do not belong in the repository address/],
      ['http://example.com/a.git', /^repo: the http:\/\/ transport is not supported/],
    ] as const) {
      const res = await h.api.post('/v1/projects', { name: `bad-${Math.random().toString(36).slice(2, 8)}`, repo });
      expect(res.status, repo).toBe(400);
      expect(res.body.error.message, repo).toMatch(message);
    }
    expect((await h.api.req('PATCH', '/v1/projects/src', { branch: 'a..b' })).body.error.message).toMatch(/^branch: /);
    expect((await h.api.req('PATCH', '/v1/projects/src', { compose_path: '../etc/passwd' })).body.error.message).toMatch(/^compose_path: /);
  });

  it('over ssh:// with a deploy key: the agent fetches with the key the control plane holds; the API shows only that a key is set', async () => {
    const url = `ssh://root@127.0.0.1:${sshd.port}${bare}`;
    const created = await h.api.post('/v1/projects', { name: 'sshsrc', repo: url, branch: 'main', git_credentials: { kind: 'ssh_key', private_key: sshd.clientKey, known_hosts: sshd.knownHosts }, webhook_secret: 'a-webhook-secret-of-enough-length' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ repo: url, git_credentials: { kind: 'ssh_key' }, webhook_secret: true });
    const shown = JSON.stringify([created.body, (await h.api.get('/v1/projects/sshsrc')).body, (await h.api.get('/v1/projects')).body, (await h.api.get('/v1/events?limit=500')).body]);
    expect(shown).not.toContain('PRIVATE KEY');
    expect(shown).not.toContain('a-webhook-secret-of-enough-length');
    const deployed = await deploySource('sshsrc', 'production', { ref: 'main' });
    expect(deployed.answer).toBe('two');
    // Without the key the repository is out of reach: the deploy is refused with git's reason.
    expect((await h.api.req('PATCH', '/v1/projects/sshsrc', { git_credentials: null })).status).toBe(200);
    const res = await h.api.post('/v1/projects/sshsrc/deploy', { env: 'production', source: { ref: 'main' } });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'REPO_UNAVAILABLE', message: expect.stringContaining(`cannot fetch ${url}`) });
  });

  it('from the CLI: denv project link (the token from the environment, never printed), then denv deploy --source --watch', async () => {
    const cli = async (args: string[], env: Record<string, string> = {}) => {
      const child = spawnDenv(['--url', h.cp.url, '--token', h.cp.adminToken, ...args], env);
      const code = await new Promise<number | null>((resolve) => child.proc.once('close', resolve));
      return { code, output: child.output() };
    };
    expect((await h.api.post('/v1/projects', { name: 'clisrc' })).status).toBe(201);
    const linked = await cli(['project', 'link', 'clisrc', '--repo', `file://${bare}`, '--branch', 'main', '--git-token'], { DENV_GIT_TOKEN: 'tok-never-printed-123' });
    expect(linked.code, linked.output).toBe(0);
    expect(linked.output).toMatch(/repo:\s+file:\/\/.*app\.git/);
    expect(linked.output).toMatch(/credentials:\s+token \(set\)/);
    expect(linked.output).not.toContain('tok-never-printed-123');
    const missing = await cli(['project', 'link', 'clisrc', '--repo', `file://${bare}`, '--git-token']);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('the access token is needed: pipe it with --git-token-stdin or set DENV_GIT_TOKEN');
    const deployed = await cli(['deploy', '--project', 'clisrc', '--source', '--watch']);
    expect(deployed.code, deployed.output).toBe(0);
    expect(deployed.output).toMatch(/succeeded/);
    // A project that does not exist yet is created, linked.
    const fresh = await cli(['project', 'link', 'newsrc', '--repo', `file://${bare}`, '--branch', 'main']);
    expect(fresh.code, fresh.output).toBe(0);
    expect((await h.api.get('/v1/projects/newsrc')).body).toMatchObject({ name: 'newsrc', repo: `file://${bare}`, branch: 'main' });
    const shown = await cli(['project', 'show', 'clisrc', '--json']);
    expect(JSON.parse(shown.output)).toMatchObject({ name: 'clisrc', branch: 'main', git_credentials: { kind: 'token' }, auto_upgrade: false });
  });

  describe('GitHub push webhook', () => {
    const SECRET = 'hook-secret-0123456789abcdef';
    // GitHub's own push payload (@octokit/webhooks-examples), pointed at this repository's commits.
    const examples = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as { name: string; examples: Record<string, unknown>[] }[];
    const pushExample = examples.find((e) => e.name === 'push')!.examples.find((p) => p.ref === 'refs/heads/master' && p.deleted === false)!;
    const pushOf = (branch: string, sha: string) => JSON.stringify({ ...pushExample, ref: `refs/heads/${branch}`, after: sha });
    let delivery = 0;
    /** POST the webhook as GitHub does: the body's bytes, signed with `secret` (null: no signature header). */
    async function hook(body: string, o: { secret?: string | null; event?: string; delivery?: string; project?: string; tamper?: (signed: string) => string } = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-github-event': o.event ?? 'push', 'x-github-delivery': o.delivery ?? `d-${++delivery}` };
      const secret = o.secret === undefined ? SECRET : o.secret;
      if (secret !== null) headers['x-hub-signature-256'] = await sign(secret, body);
      const res = await fetch(`${h.cp.url}/v1/hooks/github?project=${o.project ?? 'hooked'}`, { method: 'POST', headers, body: o.tamper ? o.tamper(body) : body });
      return { status: res.status, body: (await res.json()) as any };
    }
    /** env.create commands the agent has received (its own record). */
    const envCreates = () => readdirSync(join(h.agentDir, 'commands')).filter((f) => readFileSync(join(h.agentDir, 'commands', f), 'utf8').includes('"env.create"')).length;

    it('a signed push to the default branch deploys that commit: upgrading, then running, with deployment.source; bad, missing and replayed deliveries and other branches deploy nothing', async () => {
      const created = await h.api.post('/v1/projects', { name: 'hooked', repo: `file://${bare}`, branch: 'main', auto_upgrade: true, webhook_secret: SECRET });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const first = await deploySource('hooked', 'production', {});
      expect(first.answer).toBe(readFileSync(join(work, 'message.txt'), 'utf8'));
      ids.three = await commit(work, { 'message.txt': 'three' }, 'three');
      await git(work, 'push', '-q', bare, 'main');

      const creates = envCreates();
      const deployments = (await h.api.get('/v1/deployments?limit=500')).body.items.length;
      const body = pushOf('main', ids.three!);
      expect(await hook(body, { secret: 'not-the-secret-at-all' })).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
      expect(await hook(body, { secret: null })).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
      // Signed, then changed on the way: another branch's commit in the same bytes' place.
      expect(await hook(body, { delivery: 'tampered', tamper: (b) => b.replace(ids.three!, ids.one!) })).toMatchObject({ status: 401 });
      expect(await hook(body, { project: 'plain' })).toMatchObject({ status: 401 }); // a project without a secret
      expect(await hook(pushOf('feature', ids.three!))).toMatchObject({ status: 200, body: { ignored: 'push to feature, not to the default branch main' } });
      expect(await hook('{"zen":"hi"}', { event: 'ping' })).toMatchObject({ status: 200, body: { ignored: 'ping' } });
      expect((await h.api.get('/v1/deployments?limit=500')).body.items.length).toBe(deployments);

      const res = await hook(body, { delivery: 'the-push' });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      // The env passes through upgrading (it has a current version) and back to running.
      const seen = new Set<string>();
      const dep = await (async () => {
        for (;;) {
          seen.add((await h.api.get(`/v1/envs/${res.body.env}`)).body.status);
          const d = (await h.api.get(`/v1/deployments/${res.body.deployment}`)).body;
          if (['succeeded', 'failed', 'rolled_back'].includes(d.status)) return d;
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      expect(dep.status, dep.error ?? '').toBe('succeeded');
      const env = (await h.api.get(`/v1/envs/${res.body.env}`)).body;
      expect(env.status).toBe('running');
      // Polled while the deploy ran (upgrading lasts from the plan's approval to the verdict: seconds).
      expect([...seen]).toContain('upgrading');
      expect(await (await fetch(env.endpoints[0].url)).text()).toBe('three');
      const events = (await h.api.get(`/v1/events?subject=dep:${dep.id}`)).body.items as { type: string; data: unknown }[];
      expect(events.find((e) => e.type === 'deployment.source')?.data).toEqual({ sha: ids.three, branch: 'main', repo: `file://${bare}` });

      // GitHub sends the same delivery again: its first outcome, nothing started.
      const again = await hook(body, { delivery: 'the-push' });
      expect(again).toMatchObject({ status: 200, body: { duplicate: true, outcome: { deployment: dep.id } } });
      expect((await h.api.get('/v1/deployments?limit=500')).body.items.length).toBe(deployments + 1);
      expect(envCreates()).toBe(creates + 1);

      // A delivery that started nothing (its commit not pushed yet) is not remembered: GitHub's redelivery deploys it.
      const four = await commit(work, { 'message.txt': 'four' }, 'four');
      const early = await hook(pushOf('main', four), { delivery: 'too-early' });
      expect(early).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
      await git(work, 'push', '-q', bare, 'main');
      const redelivered = await hook(pushOf('main', four), { delivery: 'too-early' });
      expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(202);
      expect((await h.api.finished(redelivered.body.deployment)).status).toBe('succeeded');
      expect(await (await fetch((await h.api.get(`/v1/envs/${env.id}`)).body.endpoints[0].url)).text()).toBe('four');
    });
  });

  describe('x-denv.build', () => {
    // A Node app whose dependency npm installs from the repository itself (offline: tests reach no registry).
    const APP = `const http = require('node:http');
const greet = require('greet');
http.createServer((req, res) => res.end(req.url === '/healthz' ? 'ok' : greet())).listen(Number(process.env.PORT), '127.0.0.1');
`;
    const BUILD_COMPOSE = (build: string) => `services:\n  web:\n    command: ["node", "server.js"]\n    x-denv:\n      build: ${build}\n      health:\n        path: /healthz\n`;
    const npmWork = join(root, 'npm-work');
    const npmBare = join(root, 'npm-app.git');

    it('runs npm ci in the service\'s copy of the checkout before it starts, reuses the build for the same commit, and a failing build fails the deploy with its last lines while the old version serves', async () => {
      await git(root, 'init', '-q', '-b', 'main', npmWork);
      await commit(npmWork, {
        'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
        'vendor/greet/index.js': "module.exports = () => 'hello from an npm dependency';\n",
        'package.json': JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { greet: 'file:./vendor/greet' } }),
        'server.js': APP,
        'compose.yaml': BUILD_COMPOSE('["npm", "ci", "--offline", "--no-audit", "--no-fund"]'),
      }, 'app');
      await runOrThrow(['npm', 'install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'], { cwd: npmWork, env: { ...process.env, ...GIT_TEST_ENV } });
      await commit(npmWork, { 'package-lock.json': readFileSync(join(npmWork, 'package-lock.json'), 'utf8') }, 'lock');
      await git(root, 'clone', '-q', '--bare', npmWork, npmBare);
      expect((await h.api.post('/v1/projects', { name: 'npmapp', repo: `file://${npmBare}`, branch: 'main' })).status).toBe(201);

      const envDetail = (dep: { phases: readonly { name: string; evidence: any }[] }) => dep.phases.find((p) => p.name === 'prepare')!.evidence.pipelines.web.stages.find((st: { name: string }) => st.name === 'env').detail as string;
      const first = await deploySource('npmapp', 'production', {});
      expect(first.answer).toBe('hello from an npm dependency');
      expect(envDetail(first.dep)).toMatch(/; build ran in \d+ ms$/);
      const again = await deploySource('npmapp', 'production', {});
      expect(envDetail(again.dep)).toMatch(/; build cached$/);
      expect(again.answer).toBe('hello from an npm dependency');

      await commit(npmWork, { 'compose.yaml': BUILD_COMPOSE('["node", "-e", "console.log(\'compiling assets\'); console.error(\'error: asset x is missing\'); process.exit(2)"]') }, 'broken build');
      await git(npmWork, 'push', '-q', npmBare, 'main');
      const res = await h.api.post('/v1/projects/npmapp/deploy', { env: 'production', source: {} });
      const dep = await h.api.finished(res.body.deployment.id);
      expect(dep.status).not.toBe('succeeded');
      // prepare fails with the build's last lines; the rest is skipped and the verdict reverts.
      expect(dep.error).toMatch(/^prepare: web: x-denv\.build \["node","-e",.*\] exited with code 2:\n/s);
      expect(dep.error).toContain('compiling assets');
      expect(dep.error).toContain("error: asset x is missing");
      // What the build printed reached the control plane as it ran, kept with the deployment (stdout
      // and stderr are two pipes: their lines may interleave either way).
      const events = (await h.api.get(`/v1/events?subject=dep:${dep.id}&limit=500`)).body.items as { type: string; data: { service: string; lines: string[] } }[];
      expect(events.filter((e) => e.type === 'deployment.output').flatMap((e) => e.data.lines.map((l) => `${e.data.service}: ${l}`)).sort()).toEqual(['web: compiling assets', 'web: error: asset x is missing']);
      const env = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body;
      expect(env.current_version).toBe(again.env.current_version);
      expect(await (await fetch(env.endpoints[0].url)).text()).toBe('hello from an npm dependency');
    });

    it('a Compose deploy with x-denv.build is refused: builds need a source deploy\'s checkout', async () => {
      await h.api.post('/v1/projects', { name: 'composed' });
      const res = await h.api.post('/v1/projects/composed/deploy', { env: 'x', compose: BUILD_COMPOSE('["npm", "ci"]') });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("services.web.x-denv.build: builds run in a source deploy's checkout (send source, not compose)");
    });
  });
});
