/** What the lifecycle actions do on the host, with a real agent: approval gates every command;
 *  stop/start keeps version and data; teardown removes only the env; separate leaves the workload
 *  running; the monitor flips running ⇄ degraded from live status. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/contracts/domain.js';
import { waitFor } from './helpers/api.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const compose = (env: Record<string, string> = {}, volume = false) => ({
  services: {
    web: {
      command: ['node', APP],
      environment: env,
      'x-denv': { health: { path: '/healthz', timeout: '10s' } },
      ...(volume ? { volumes: ['data:/data'] } : {}),
    },
  },
  ...(volume ? { volumes: { data: {} } } : {}),
});

describe('lifecycle work on the host', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ cp: { liveStatusMs: 300 } });
    await h.api.post('/v1/projects', { name: 'gated', approval: 'required' });
    await h.api.post('/v1/projects', { name: 'app' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const env = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
  const statusIs = (id: string, s: string) => waitFor(async () => (await env(id)).status === s, 30_000, `env ${id} to be ${s}`);
  const commandLog = (): { id: string; kind: string; env: string | null; source: string }[] => {
    const file = join(h.agentDir, 'command-log.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  };
  const events = async (id: string) => (await h.api.get(`/v1/events?subject=env:${id}&limit=1000`)).body.items as { type: string; data: Record<string, unknown> }[];

  it('with approval required, the agent receives no command until the plan is approved', async () => {
    const res = await h.api.post('/v1/projects/gated/deploy', { compose: compose() });
    const id = res.body.env.id as string;
    await statusIs(id, 'awaiting_approval');
    const plans = (await h.api.get(`/v1/envs/${id}/plans`)).body.items;
    expect(plans[0]).toMatchObject({ status: 'ready', planner: 'host', summary: expect.stringContaining('web: process `node') });
    expect(plans[0].artifact).toContain('services:');
    // The dispatcher has run since, and passed it over: a deploy made after this one (auto
    // approved) was claimed and finished — a claim that would have taken this older one too.
    const later = await h.api.post('/v1/projects/app/deploy', { env: 'after-gated', compose: compose() });
    expect((await h.api.finished(later.body.deployment.id)).status).toBe('succeeded');
    expect(commandLog().filter((c) => c.env === later.body.env.id).map((c) => c.kind)).toContain('env.create');
    // nothing has reached the host, and the deployment waits
    expect(commandLog().filter((c) => c.env === id)).toEqual([]);
    const pending = (await h.api.get(`/v1/deployments/${res.body.deployment.id}`)).body;
    expect(pending).toMatchObject({ status: 'pending', waiting: `approval of env gated/${res.body.env.name}'s plan (denv env approve gated/${res.body.env.name})` });
    const listed = (await h.api.get(`/v1/deployments?env=${id}`)).body.items;
    expect(listed.map((d: { id: string; waiting?: string }) => [d.id, d.waiting])).toEqual([[res.body.deployment.id, pending.waiting]]);

    const approved = await h.api.post(`/v1/envs/${id}/approve`, {});
    expect(approved.status).toBe(202);
    expect(approved.body.env.status).toBe('deploying');
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status).toBe('succeeded');
    expect(dep).not.toHaveProperty('waiting');
    expect(commandLog().filter((c) => c.env === id).map((c) => c.kind)).toEqual(['env.create', 'env.snapshot', 'env.rollback']);
    const types = (await events(id)).map((e) => e.type);
    for (const t of ['plan_ready', 'plan_approved', 'cmd_sent', 'apply_succeeded']) expect(types).toContain(t);
    expect((await events(id)).find((e) => e.type === 'plan_approved')!.data.actor).toBe('user');
  });

  it('records auto approval with actor policy, and replan keeps guidance in the plan history', async () => {
    const res = await h.api.post('/v1/projects/app/deploy', { env: 'replan', compose: compose() });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    expect((await events(id)).find((e) => e.type === 'plan_approved')!.data.actor).toBe('policy');
    expect((await h.api.post(`/v1/envs/${id}/replan`, { guidance: 'keep it small' })).status).toBe(202);
    await waitFor(async () => (await h.api.get(`/v1/envs/${id}/plans`)).body.items[0]?.status === 'approved' && (await env(id)).status === 'running', 30_000, 'replanned');
    const plans = (await h.api.get(`/v1/envs/${id}/plans`)).body.items;
    expect(plans[0].guidance).toBe('keep it small');
    expect(plans[0].summary).toContain('Instructions: keep it small');
    expect(plans.length).toBeGreaterThanOrEqual(2);
  });

  it('stop then start brings the same version back with its data', async () => {
    const res = await h.api.post('/v1/projects/app/deploy', { env: 'data', compose: compose({}, true) });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    const before = await env(id);
    // the app appends to a file in its dataset (DENV_VOLUME_DATA)
    const url = before.endpoints[0]!.url;
    expect(await (await fetch(`${url}/data`, { method: 'POST', body: 'kept' })).text()).toBe('ok');
    expect((await h.api.post(`/v1/envs/${id}/stop`, {})).status).toBe(202);
    await statusIs(id, 'stopped');
    await expect(fetch(url)).rejects.toThrow();
    expect((await h.api.post(`/v1/envs/${id}/start`, {})).status).toBe(202);
    await statusIs(id, 'running');
    const after = await env(id);
    expect(after.current_version).toBe(before.current_version);
    expect(await (await fetch(`${after.endpoints[0]!.url}/data`)).text()).toBe('kept');
    const types = (await events(id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['stop_requested', 'start_requested']));
  });

  it('teardown removes everything of the env on the host and nothing else', async () => {
    const keep = (await h.api.post('/v1/projects/app/deploy', { env: 'keep', compose: compose({}, true) })).body.env.id as string;
    const gone = (await h.api.post('/v1/projects/app/deploy', { env: 'gone', compose: compose({}, true) })).body.env.id as string;
    await statusIs(keep, 'running');
    await statusIs(gone, 'running');
    const keepUrl = (await env(keep)).endpoints[0]!.url;
    await fetch(`${keepUrl}/data`, { method: 'POST', body: 'mine' });
    const goneUrl = (await env(gone)).endpoints[0]!.url;
    const td = await h.api.post(`/v1/envs/${gone}/teardown`, {});
    expect(td.status).toBe(202);
    expect(td.body.deployment.kind).toBe('destroy');
    await statusIs(gone, 'torn_down');
    await expect(fetch(goneUrl)).rejects.toThrow();
    const leftovers = [join(h.agentDir, 'envs', gone), join(h.agentDir, 'datasets', gone), join(h.agentDir, 'logs', gone)].filter((p) => existsSync(p));
    expect(leftovers).toEqual([]);
    expect(readFileSync(join(h.agentDir, 'ports.json'), 'utf8')).not.toContain(gone);
    expect(await (await fetch(`${keepUrl}/data`)).text()).toBe('mine');
    expect((await events(gone)).map((e) => e.type)).toContain('teardown_requested');
  });

  it('separate leaves the workload running, unmanaged', async () => {
    const res = await h.api.post('/v1/projects/app/deploy', { env: 'sep', compose: compose() });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    const url = (await env(id)).endpoints[0]!.url;
    const sep = await h.api.post(`/v1/envs/${id}/separate`, {});
    expect(sep.status).toBe(202);
    const dep = await h.api.finished(sep.body.deployment.id);
    expect(dep.status).toBe('succeeded');
    expect(dep.phases[0]).toMatchObject({ name: 'release', status: 'ok' });
    const left = dep.phases[0]!.evidence!.left_running as number[];
    expect(left).toHaveLength(1);
    expect(await (await fetch(url)).text()).toContain(String(left[0]));
    expect(readdirSync(join(h.agentDir, 'envs'))).not.toContain(id); // forgotten by the agent
    expect(JSON.parse(readFileSync(join(h.agentDir, 'released.json'), 'utf8'))[id].pids).toEqual(left);
    expect((await h.api.post(`/v1/envs/${id}/stop`, {})).status).toBe(409);
    process.kill(-left[0]!, 'SIGKILL'); // ours to clean up now
  });

  it('flips a running env to degraded when its service fails health, and back when it recovers', async () => {
    const res = await h.api.post('/v1/projects/app/deploy', { env: 'mon', compose: compose() });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    const url = (await env(id)).endpoints[0]!.url;
    await fetch(`${url}/sick`, { method: 'POST' });
    await statusIs(id, 'degraded');
    await fetch(`${url}/well`, { method: 'POST' });
    await statusIs(id, 'running');
    const flips = (await events(id)).filter((e) => e.type === 'status_changed').map((e) => e.data.to);
    expect(flips).toEqual(['degraded', 'running']);
    expect((await env(id)).status).toBe('running');
  });
});
