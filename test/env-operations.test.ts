/**
 * The data operations' API contract and CLI: closed bodies (400 with the path, nothing written),
 * rollback refusals (409 saying why), sandboxes in both forms, and `denv env … --watch` as a
 * child process. Real control plane and agent process; the copy driver.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Version } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv } from './helpers/processes.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const app = (mode = 'ok') => ({
  services: { web: { command: ['node', APP], environment: { MODE: mode, DATA_FILE: 'rows' }, volumes: ['data:/d'], 'x-denv': { health: { path: '/healthz', timeout: '5s' } } } },
  volumes: { data: {} },
});

let h: Harness;
let env: Env;
beforeAll(async () => {
  h = await startHarness();
  await h.api.post('/v1/projects', { name: 'ops' });
  const dep = await h.api.finished((await h.api.post('/v1/projects/ops/deploy', { compose: app(), env: 'main' })).body.deployment.id);
  expect(dep.status, dep.error ?? '').toBe('succeeded');
  env = (await h.api.get(`/v1/envs/${dep.env}`)).body;
});
afterAll(async () => {
  await h?.close();
});

async function counts() {
  const envs = (await h.api.get('/v1/envs?limit=500')).body.items.length;
  const deployments = (await h.api.get('/v1/deployments?limit=500')).body.items.length;
  return { envs, deployments };
}

/** `node bin/denv --url … --token … <args>`: exit code and output. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnDenv(['--url', h.cp.url, '--token', h.cp.adminToken, ...args], { DENV_URL: '', DENV_TOKEN: '' });
  let stdout = '';
  let stderr = '';
  child.proc.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.proc.stderr!.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.proc.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('data operations API', () => {
  it.each([
    ['fork', 'POST', '/fork', { name: 'x', colour: 'red' }, 'unknown field "colour"'],
    ['fork', 'POST', '/fork', { name: 'Not A Slug' }, 'name: expected lowercase'],
    ['rollback', 'POST', '/rollback', {}, 'version:'],
    ['rollback', 'POST', '/rollback', { version: 1, data: true }, 'unknown field "data"'],
    ['snapshot', 'POST', '/snapshot', { name: 'x' }, 'unknown field "name"'],
    ['verify', 'POST', '/verify', { resume: 'yes' }, 'resume:'],
  ])('%s answers 400 naming the problem and writes nothing (%j)', async (_kind, method, suffix, body, message) => {
    const before = await counts();
    const res = await h.api.req(method, `/v1/envs/${env.id}${suffix}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it('refuses (409) a rollback to a version that is not a healthy snapshot of this env, saying why', async () => {
    const broken = await h.api.finished((await h.api.post('/v1/projects/ops/deploy', { compose: app('crash'), env: 'main' })).body.deployment.id);
    expect(broken.status).toBe('rolled_back');
    const versions = (await h.api.get(`/v1/envs/${env.id}/versions`)).body.items as Version[];
    const unhealthy = versions.find((v) => !v.healthy)!;
    const other = await h.api.finished((await h.api.post('/v1/projects/ops/deploy', { compose: app(), env: 'other' })).body.deployment.id);
    const otherVersion = (await h.api.get(`/v1/envs/${other.env}`)).body.current_version;
    const before = await counts();
    for (const [version, message] of [
      [unhealthy.id, /is not healthy/],
      [unhealthy.number, /is not healthy/],
      // Another env's version is looked up within this env only: the error never names the other env.
      [otherVersion, new RegExp(`^cannot roll back to version ${otherVersion}: env ${env.id} has no such version$`)],
      ['ver_nope', /has no such version/],
      [99, /has no such version/],
    ] as const) {
      const res = await h.api.post(`/v1/envs/${env.id}/rollback`, { version });
      expect(res.status, String(version)).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect(res.body.error.message).toMatch(message);
    }
    expect(await counts()).toEqual(before);
    expect((await h.api.post('/v1/envs/env_nope/rollback', { version: 1 })).status).toBe(404);
    await h.api.req('DELETE', `/v1/envs/${other.env}`);
  });

  it('runs a sandbox from a command as a process (image form) and lists it with its stage', async () => {
    const res = await h.api.post('/v1/sandboxes', { command: ['node', APP], env: { VERSION: 'sbx' }, ports: [8080] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.env).toMatchObject({ stage: 'sandbox', name: expect.stringMatching(/^sandbox-/) });
    expect(res.body.deployment.kind).toBe('deploy');
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const sandbox = (await h.api.get(`/v1/envs/${res.body.env.id}`)).body as Env;
    expect(sandbox).toMatchObject({ stage: 'sandbox', status: 'running' });
    expect(await (await fetch(sandbox.endpoints[0]!.url)).text()).toMatch(/^sbx /);
    const listed = ((await h.api.get('/v1/envs?limit=500')).body.items as Env[]).find((e) => e.id === sandbox.id);
    expect(listed?.stage).toBe('sandbox');
    expect((await h.api.get('/v1/projects/sandboxes')).status).toBe(200);
    await h.api.req('DELETE', `/v1/envs/${sandbox.id}`);
  });

  it.each([
    [{}, 400, 'an image or a command is required'],
    [{ from_version: 'ver_x', command: 'sleep 1' }, 400, 'from_version: cannot be combined with command'],
    [{ from_version: 'ver_nope' }, 404, 'not found'],
    [{ command: 'x', cpu: 2 }, 400, 'unknown field "cpu"'],
    [{ command: 'x', env: { 'BAD NAME': '1' } }, 400, 'env.BAD NAME'],
  ])('refuses the sandbox body %j', async (body, status, message) => {
    const before = await counts();
    const res = await h.api.post('/v1/sandboxes', body);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toContain(message);
    expect(await counts()).toEqual(before);
  });
});

describe('denv env', () => {
  it('snapshot, fork and destroy with --watch print the phases and exit 0; ls lists the fork', async () => {
    const snap = await cli('env', 'snapshot', env.id, '--watch');
    expect(snap.code, snap.stdout + snap.stderr).toBe(0);
    expect(snap.stdout).toMatch(/^deployment dep_\S+ \(snapshot\) started on env main/m);
    for (const p of ['snapshot', 'health', 'verdict']) expect(snap.stdout).toMatch(new RegExp(`^  ✓ ${p} `, 'm'));
    expect(snap.stdout.trimEnd().split('\n').at(-1)).toMatch(/^succeeded in /);

    const fork = await cli('env', 'fork', env.id, '--name', 'main-copy', '--watch', '--json');
    expect(fork.code, fork.stderr).toBe(0);
    const forkDep = JSON.parse(fork.stdout) as Deployment;
    expect(forkDep).toMatchObject({ kind: 'fork', status: 'succeeded' });

    const ls = await cli('env', 'ls', '--json');
    const forkEnv = (JSON.parse(ls.stdout).items as Env[]).find((e) => e.id === forkDep.env)!;
    expect(forkEnv).toMatchObject({ name: 'main-copy', stage: 'fork', status: 'running' });

    const rollback = await cli('env', 'rollback', env.id, '999');
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toMatch(/^error \(CONFLICT\): cannot roll back to version 999/);

    const destroy = await cli('env', 'destroy', forkDep.env, '--watch');
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(destroy.stdout).toMatch(/^  ✓ teardown /m);
    expect((await h.api.get(`/v1/envs/${forkDep.env}`)).body.status).toBe('torn_down');
  });
});
