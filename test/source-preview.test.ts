/**
 * Preview environments (issue 13): a GitHub pull request opens a preview env `pr-<n>` forked from
 * production's latest healthy snapshot — it sees production's rows as of that snapshot, its writes
 * never reach production — deployed at the PR's head commit; a push to the PR redeploys it; closing
 * the PR tears it down, leaving no process and no dataset. Also by hand: POST
 * /v1/projects/{p}/previews. GitHub's own pull_request payloads (@octokit/webhooks-examples),
 * signed as GitHub signs them; a real agent process and real git repositories.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/api.js';
import { agentServicePids, startHarness, type Harness } from './helpers/harness.js';
import { commit, git } from './helpers/git-repos.js';
import { spawnDenv } from './helpers/processes.js';

// Rows in a file of the `data` dataset; GET / says which code runs.
const SERVER = (code: string) => `const http = require('node:http');
const fs = require('node:fs');
const file = require('node:path').join(process.env.DENV_VOLUME_DATA, 'rows');
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/healthz') return res.end('ok');
  if (url.pathname === '/rows' && req.method === 'POST') { fs.appendFileSync(file, url.searchParams.get('v') + '\\n'); return res.end('ok'); }
  if (url.pathname === '/rows') return res.end(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  res.end(${JSON.stringify(code)});
}).listen(Number(process.env.PORT), '127.0.0.1');
`;
const COMPOSE = 'services:\n  web:\n    command: ["node", "server.js"]\n    volumes: ["data:/data"]\n    x-denv:\n      health:\n        path: /healthz\nvolumes:\n  data: {}\n';
const SECRET = 'preview-secret-0123456789';

describe('preview environments', () => {
  let h: Harness;
  const root = mkdtempSync(join(tmpdir(), 'denv-preview-test-'));
  const work = join(root, 'work');
  const bare = join(root, 'app.git');
  const examples = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as { name: string; examples: any[] }[];
  const prExample = (action: string) => examples.find((e) => e.name === 'pull_request')!.examples.find((p) => p.action === action)!;
  let delivery = 0;

  beforeAll(async () => {
    await git(root, 'init', '-q', '-b', 'main', work);
    await commit(work, { 'compose.yaml': COMPOSE, 'server.js': SERVER('main') }, 'main');
    await git(root, 'clone', '-q', '--bare', work, bare);
    h = await startHarness({ cp: { allowFileRepos: true } });
    expect((await h.api.post('/v1/projects', { name: 'shop', repo: `file://${bare}`, branch: 'main', webhook_secret: SECRET })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function pullRequest(action: 'opened' | 'synchronize' | 'closed', number: number, sha: string, branch: string) {
    const ex = prExample(action);
    const body = JSON.stringify({ ...ex, number, pull_request: { ...ex.pull_request, number, head: { ...ex.pull_request.head, sha, ref: branch } } });
    const res = await fetch(`${h.cp.url}/v1/hooks/github?project=shop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': `pr-${++delivery}`, 'x-hub-signature-256': await sign(SECRET, body) },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const text = async (url: string, init?: RequestInit) => (await fetch(url, init)).text();
  const urlOf = async (env: string) => (await h.api.get(`/v1/envs/${env}`)).body.endpoints[0].url as string;
  const succeeded = async (dep: string) => {
    const d = await h.api.finished(dep, 90_000);
    expect(d.status, d.error ?? '').toBe('succeeded');
    return d;
  };

  it('a pull request gets a preview with production\'s data as of its latest snapshot, its own writes, its head commit; a push redeploys it; closing it leaves nothing', async () => {
    const prod = await h.api.post('/v1/projects/shop/deploy', { env: 'production', source: {} });
    await succeeded(prod.body.deployment.id);
    const prodUrl = await urlOf(prod.body.env.id);
    await text(`${prodUrl}/rows?v=order-1`, { method: 'POST' });
    // A snapshot after the write: the preview must see the row.
    const snap = await h.api.post(`/v1/envs/${prod.body.env.id}/snapshot`, {});
    await succeeded(snap.body.deployment.id);
    await text(`${prodUrl}/rows?v=order-2-after-snapshot`, { method: 'POST' });

    await git(work, 'checkout', '-q', '-b', 'feature');
    const head = await commit(work, { 'server.js': SERVER('feature v1') }, 'feature v1');
    await git(work, 'push', '-q', bare, 'feature');
    const opened = await pullRequest('opened', 7, head, 'feature');
    expect(opened.status, JSON.stringify(opened.body)).toBe(202);
    const snapVersion = (await h.api.get(`/v1/envs/${prod.body.env.id}`)).body.current_version;
    expect(opened.body.forked_from).toBe(snapVersion);
    await succeeded(opened.body.deployment);
    const preview = (await h.api.get(`/v1/envs/${opened.body.env}`)).body;
    expect(preview).toMatchObject({ name: 'pr-7', stage: 'preview', status: 'running' });
    const previewUrl = preview.endpoints[0].url as string;
    expect(await text(previewUrl)).toBe('feature v1');
    expect(await text(`${previewUrl}/rows`)).toBe('order-1\n');
    await text(`${previewUrl}/rows?v=preview-only`, { method: 'POST' });
    expect(await text(`${prodUrl}/rows`)).toBe('order-1\norder-2-after-snapshot\n');
    expect(await text(prodUrl)).toBe('main');

    const head2 = await commit(work, { 'server.js': SERVER('feature v2') }, 'feature v2');
    await git(work, 'push', '-q', bare, 'feature');
    const pushed = await pullRequest('synchronize', 7, head2, 'feature');
    expect(pushed.status).toBe(202);
    expect(pushed.body).toMatchObject({ env: preview.id, forked_from: null });
    await succeeded(pushed.body.deployment);
    expect(await text(await urlOf(preview.id))).toBe('feature v2');
    // The preview's own data stayed: a redeploy is not a new fork.
    expect(await text(`${await urlOf(preview.id)}/rows`)).toBe('order-1\npreview-only\n');

    const pids = agentServicePids(h.agentDir);
    const closed = await pullRequest('closed', 7, head2, 'feature');
    expect(closed.status).toBe(200);
    expect(closed.body.closed).toMatchObject({ env: preview.id });
    await waitFor(async () => (await h.api.get(`/v1/envs/${preview.id}`)).body.status === 'torn_down', 60_000, 'the preview to be torn down');
    expect(existsSync(join(h.agentDir, 'envs', preview.id))).toBe(false);
    // No dataset and no port of it left (the agent's default dataset root, and its port registry).
    expect(existsSync(join(`${h.agentDir}-workloads`, 'datasets', prod.body.env.id))).toBe(true);
    expect(existsSync(join(`${h.agentDir}-workloads`, 'datasets', preview.id))).toBe(false);
    expect(readFileSync(join(h.agentDir, 'ports.json'), 'utf8')).toContain(prod.body.env.id);
    expect(readFileSync(join(h.agentDir, 'ports.json'), 'utf8')).not.toContain(preview.id);
    const left = agentServicePids(h.agentDir);
    for (const pid of pids.filter((p) => !left.includes(p))) expect(() => process.kill(pid, 0)).toThrow();
    expect(await text(`${prodUrl}/rows`)).toBe('order-1\norder-2-after-snapshot\n');
  });

  it('by hand: POST /v1/projects/{p}/previews deploys a branch to preview-<branch>; DELETE tears it down', async () => {
    const res = await h.api.post('/v1/projects/shop/previews', { ref: 'feature' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await succeeded(res.body.deployment);
    const env = (await h.api.get(`/v1/envs/${res.body.env}`)).body;
    expect(env).toMatchObject({ name: 'preview-feature', stage: 'preview' });
    expect(await text(env.endpoints[0].url)).toBe('feature v2');
    // A push to its branch redeploys it (the webhook's push, not a pull request's).
    await git(work, 'checkout', '-q', 'feature');
    const head3 = await commit(work, { 'server.js': SERVER('feature v3') }, 'feature v3');
    await git(work, 'push', '-q', bare, 'feature');
    const body = JSON.stringify({ ref: 'refs/heads/feature', after: head3, deleted: false, repository: { full_name: 'acme/shop' } });
    const pushed = await fetch(`${h.cp.url}/v1/hooks/github?project=shop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'push-feature', 'x-hub-signature-256': await sign(SECRET, body) },
      body,
    });
    const started = (await pushed.json()) as { env: string; deployment: string };
    expect(pushed.status, JSON.stringify(started)).toBe(202);
    expect(started.env).toBe(env.id);
    await succeeded(started.deployment);
    expect(await text(await urlOf(env.id))).toBe('feature v3');
    expect((await h.api.req('DELETE', '/v1/projects/shop/previews/preview-feature')).status).toBe(202);
    await waitFor(async () => (await h.api.get(`/v1/envs/${env.id}`)).body.status === 'torn_down', 60_000, 'the preview to be torn down');
    expect((await h.api.req('DELETE', '/v1/projects/shop/previews/preview-feature')).body.error.code).toBe('NOT_FOUND');
    expect((await h.api.req('DELETE', '/v1/projects/shop/previews/production')).body.error).toMatchObject({ code: 'BAD_REQUEST', message: 'env production is not a preview (its stage is production)' });
  });

  it('from the CLI: denv preview create --watch (forked from production), then denv preview rm', async () => {
    const cli = async (...args: string[]) => {
      const child = spawnDenv(['--url', h.cp.url, '--token', h.cp.adminToken, ...args]);
      const code = await new Promise<number | null>((resolve) => child.proc.once('close', resolve));
      return { code, output: child.output() };
    };
    const created = await cli('preview', 'create', '--project', 'shop', '--ref', 'main', '--name', 'preview-cli', '--watch');
    expect(created.code, created.output).toBe(0);
    expect(created.output).toMatch(/^preview preview-cli \(env_\S+\): deployment dep_\S+ started, forked from production version ver_\S+$/m);
    const removed = await cli('preview', 'rm', '--project', 'shop', 'preview-cli');
    expect(removed.code, removed.output).toBe(0);
    expect(removed.output).toMatch(/^preview preview-cli \(env_\S+\): tearing down \(deployment dep_\S+\)$/m);
    const missing = await cli('preview', 'create', '--ref', 'main');
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('which project? pass --project <name>');
  });
});
