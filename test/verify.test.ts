/**
 * verify end to end: a real control plane and agent process, an "AI agent" process service
 * frozen, collected, snapshotted and graded in a fork by a verifier process. One hostile agent
 * plants everything collect must refuse.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Version } from '../src/contracts/domain.js';
import { readProcStat } from '../src/agent/runtimes/process/proc-stat.js';
import { agentServicePids, startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

const AGENT = fileURLToPath(new URL('./fixtures/ai-agent.js', import.meta.url));
const VERIFIER = fileURLToPath(new URL('./fixtures/verifier.js', import.meta.url));

/**
 * `x-denv.agent.service: agent` working in its env's own directory, graded by the verifier
 * fixture. The hostile agent runs as root in `workDir` (the worst case for collect: it can plant
 * device nodes; this test's agent allows `run_as_root`), the cooperative one as its env's user.
 */
function agentCompose(workDir: string | null, o: { hostile?: boolean; paths?: string[] } = {}) {
  return {
    services: {
      agent: {
        command: ['node', AGENT],
        ...(workDir ? { working_dir: workDir } : {}),
        ...(o.hostile ? { user: 'root' } : {}),
        environment: { HOSTILE: o.hostile ? '1' : '0' },
        volumes: ['data:/data'],
        'x-denv': { health: { path: '/', timeout: '120s' } },
      },
    },
    volumes: { data: {} },
    'x-denv': {
      agent: { service: 'agent', paths: o.paths ?? ['out'] },
      verifier: { command: ['node', VERIFIER], timeout: '60s' },
    },
  };
}

const SEED_EVIDENCE: Record<string, string[]> = {
  stop: ['agent_service', 'mode'],
  collect: ['files', 'bytes', 'missing', 'refused'],
  snapshot: ['snapshot', 'datasets', 'frozen_for', 'consistent'],
  clone: ['grader_env', 'forked_in_ms'],
  grade: ['reward', 'exit_code', 'stdout', 'stderr', 'source', 'ran_for'],
  verdict: ['reward', 'source', 'exit_code', 'refused', 'missing', 'agent_frozen', 'took_ms'],
};

let h: Harness;
const workDirs: string[] = [];
beforeAll(async () => {
  const cfg = freshDataDir('denv-verify-cfg-');
  writeFileSync(join(cfg, 'agent.yaml'), 'run_as_root: true\n');
  h = await startHarness({ agentConfig: join(cfg, 'agent.yaml') });
  expect((await h.api.post('/v1/projects', { name: 'lab' })).status).toBe(201);
});
afterAll(async () => {
  await h?.close();
  for (const d of workDirs) rmSync(d, { recursive: true, force: true });
});

function workDir(): string {
  const d = freshDataDir('denv-ai-agent-');
  workDirs.push(d);
  return d;
}

async function deploy(env: string, compose: unknown): Promise<Env> {
  const res = await h.api.post('/v1/projects/lab/deploy', { compose, env });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const dep = await h.api.finished(res.body.deployment.id, 120_000);
  expect(dep.status, dep.error ?? '').toBe('succeeded');
  return (await h.api.get(`/v1/envs/${dep.env}`)).body;
}

async function verify(env: string, body: Record<string, unknown> = {}): Promise<Deployment> {
  const res = await h.api.post(`/v1/envs/${env}/verify`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.deployment.phases.map((p: { name: string }) => p.name)).toEqual(['stop', 'collect', 'snapshot', 'clone', 'grade', 'verdict']);
  return h.api.finished(res.body.deployment.id, 120_000);
}

const phase = (d: Deployment, name: string) => d.phases.find((p) => p.name === name)!;

/** The agent service's process state letter (T = stopped). */
async function agentState(): Promise<string | undefined> {
  const states = await Promise.all(agentServicePids(h.agentDir).map(async (pid) => (await readProcStat(pid))?.state));
  return states.find((s) => s !== undefined);
}

describe('verify', () => {
  it('grades the collected answer in a fork, keeps the agent frozen and the capture forkable', async () => {
    const env = await deploy('solver', agentCompose(null));
    const dep = await verify(env.id);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    for (const [name, keys] of Object.entries(SEED_EVIDENCE)) for (const key of keys) expect(phase(dep, name).evidence, `${name}.${key}`).toHaveProperty(key);
    expect(phase(dep, 'stop').evidence).toEqual({ agent_service: 'agent', mode: 'pause' });
    expect(phase(dep, 'collect').evidence).toMatchObject({ files: 2, bytes: 3, missing: [], refused: [] });
    expect(phase(dep, 'grade').evidence).toMatchObject({ reward: 1, source: 'stdout', exit_code: 0, refused: false });
    expect(phase(dep, 'grade').evidence!.stdout).toContain('checking answer "42"');
    // The verifier ran as a user of its own: not root, and not the user of the code it grades.
    const verifierUid = Number(/as uid (\d+)/.exec(phase(dep, 'grade').evidence!.stdout as string)![1]);
    const agentUid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${agentServicePids(h.agentDir)[0]}/status`, 'utf8'))![1]);
    expect(verifierUid).not.toBe(0);
    expect(verifierUid).not.toBe(agentUid);
    const verdict = phase(dep, 'verdict').evidence!;
    expect(verdict).toMatchObject({ reward: 1, source: 'stdout', exit_code: 0, refused: false, missing: [], agent_frozen: true, grader_destroyed: true });

    // The agent's env keeps its version; the capture is a healthy, forkable version of it.
    const after = (await h.api.get(`/v1/envs/${env.id}`)).body as Env;
    expect(after.current_version).toBe(env.current_version);
    const capture = ((await h.api.get(`/v1/envs/${env.id}/versions`)).body.items as Version[]).find((v) => v.id === verdict.capture)!;
    expect(capture).toMatchObject({ healthy: true, snapshot: capture.id, number: 2 });
    const grader = (await h.api.get(`/v1/envs/${verdict.grader_env}`)).body as Env;
    expect(grader).toMatchObject({ stage: 'verify', status: 'torn_down', parent_version: capture.id, name: expect.stringMatching(/^solver-verify-/) });
    expect(readdirSync(join(h.agentDir, 'envs'))).not.toContain(grader.id);
    expect(await agentState()).toBe('T');

    const sandbox = await h.api.post('/v1/sandboxes', { from_version: capture.id });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(202);
    expect(sandbox.body.env).toMatchObject({ stage: 'sandbox', parent_version: capture.id });
    expect((await h.api.finished(sandbox.body.deployment.id)).status).toBe('succeeded');
    const listed = (await h.api.get('/v1/envs?limit=500')).body.items as Env[];
    expect(listed.find((e) => e.id === sandbox.body.env.id)).toMatchObject({ stage: 'sandbox', status: 'running' });
    await h.api.req('DELETE', `/v1/envs/${sandbox.body.env.id}`);

    // resume: true lets the agent run again once captured.
    const resumed = await verify(env.id, { resume: true });
    expect(resumed.status, resumed.error ?? '').toBe('succeeded');
    expect(phase(resumed, 'verdict').evidence).toMatchObject({ reward: 1, agent_frozen: false });
    expect(await agentState()).not.toBe('T');
    await h.api.req('DELETE', `/v1/envs/${env.id}`);
  });

  it('refuses what a hostile agent plants, never blocks, writes only its own directory, and the verdict says refused', async () => {
    const dir = workDir();
    const env = await deploy('hostile', agentCompose(dir, { hostile: true, paths: ['out', '../outside', 'out/../../etc', '/etc/shadow', 'absent'] }));
    const started = Date.now();
    const dep = await verify(env.id);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    const collect = phase(dep, 'collect').evidence as { files: number; refused: { path: string; reason: string }[]; refused_count: number; missing: string[] };
    const reasons = Object.fromEntries(collect.refused.map((r) => [r.path, r.reason]));
    expect(reasons).toMatchObject({
      'out/shadow': 'symlink',
      'out/up': 'symlink',
      'out/loop-a': 'symlink',
      'out/loop-b': 'symlink',
      'out/fifo': 'fifo',
      'out/zero': 'device',
      'out/sock': 'socket',
      'out/hardlink': 'hard link to a file outside the collected paths',
      '../outside': 'escapes the service root',
      'out/../../etc': 'escapes the service root',
      '/etc/shadow': 'escapes the service root',
    });
    expect(reasons['out/sparse']).toMatch(/^(byte|entry) limit/);
    expect(reasons['out/many/']).toMatch(/^entry limit \(10000\) reached/);
    expect(collect.missing).toEqual(['absent']);
    expect(collect.refused_count).toBeGreaterThan(90_000);
    expect(phase(dep, 'grade').evidence).toMatchObject({ reward: 1, refused: true });
    expect(phase(dep, 'verdict').evidence).toMatchObject({ reward: 1, refused: true, missing: ['absent'] });

    // What was collected: regular files and directories only, all inside the capture's directory.
    const capture = phase(dep, 'verdict').evidence!.capture as string;
    const collectedRoot = join(`${h.agentDir}-workloads`, 'collected');
    expect(readdirSync(collectedRoot)).toEqual([env.id]);
    expect(readdirSync(join(collectedRoot, env.id))).toEqual([capture]);
    const found = execFileSync('find', [join(collectedRoot, env.id, capture), '-not', '-type', 'f', '-not', '-type', 'd'], { encoding: 'utf8' });
    expect(found).toBe('');
    const out = join(collectedRoot, env.id, capture, 'out');
    expect(readdirSync(out).sort()).toEqual(['answer.txt', 'many']);
    expect(readdirSync(join(out, 'many')).length).toBe(collect.files - 3);
    expect(lstatSync(join(collectedRoot, env.id, capture)).mode & 0o777).toBe(0o700);
    await h.api.req('DELETE', `/v1/envs/${env.id}`);
  });

  it('needs x-denv.agent.service and x-denv.verifier (400 naming the missing field)', async () => {
    const compose = agentCompose(null) as Record<string, unknown>;
    const noVerifier = { ...compose, 'x-denv': { agent: { service: 'agent', paths: ['out'] } } };
    const env = await deploy('no-verifier', noVerifier);
    const refused = await h.api.post(`/v1/envs/${env.id}/verify`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^x-denv\.verifier: required for verify/);
    const plain = await deploy('no-verifier', { services: (compose as { services: unknown }).services, volumes: { data: {} } });
    const refused2 = await h.api.post(`/v1/envs/${plain.id}/verify`, {});
    expect(refused2.status).toBe(400);
    expect(refused2.body.error.message).toMatch(/^x-denv\.agent\.service: required for verify/);
    expect((await h.api.post(`/v1/envs/${plain.id}/verify`, { resume: 'yes' })).status).toBe(400);
    expect((await h.api.post(`/v1/envs/${plain.id}/verify`, { resume: true, extra: 1 })).body.error.message).toContain('unknown field "extra"');
    const deployments = (await h.api.get(`/v1/deployments?env=${plain.id}`)).body.items as Deployment[];
    expect(deployments.map((d) => d.kind)).toEqual(['deploy', 'deploy']);
    await h.api.req('DELETE', `/v1/envs/${plain.id}`);
  });
});
