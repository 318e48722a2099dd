/** Crashes: a control plane SIGKILLed mid-deployment resumes it; an agent SIGKILLed leaves its
 *  services serving and adopts them again. Real processes throughout. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Api, waitFor } from './helpers/api.js';
import { agentServicePids, killServiceProcesses, startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv, startAgentProcess, type Child } from './helpers/processes.js';
import { freshDataDir, seedPGlite } from './helpers/stores.js';
import { lateBoundPort } from './helpers/free-port.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const compose = (version: string, extraEnv: Record<string, string> = {}) => ({
  services: { web: { command: ['node', APP], environment: { VERSION: version, ...extraEnv }, 'x-denv': { health: { path: '/healthz', timeout: '20s' } } } },
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('control plane killed mid-deployment', () => {
  const children: Child[] = [];
  let agentDir = '';
  afterEach(async () => {
    for (const c of children) await c.kill('SIGKILL');
    if (agentDir) killServiceProcesses(agentDir);
  });

  /** The agent's own record of deliveries (dispatch.ts): one entry per delivery of a command id. */
  const deliveryLog = () =>
    readFileSync(join(agentDir, 'command-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; kind: string; env: string | null; source: string });

  // The agent reconnects to the new control plane, which re-sends the open command at once
  // whatever the resend window (issue 11: a result never waits for a timeout), unless the agent's
  // kept result reached it first. A re-send joins the run still in flight or is answered from the
  // agent's record: the command is applied once either way (which of the two depends on timing).
  it.each([
    ['with the default resend window', undefined],
    ['with a 0 ms resend window', '0'],
  ])('resumes the deployment after restart %s; the open command is applied once', async (_what, resendAfter) => {
    const dataDir = freshDataDir();
    const cpDir = join(dataDir, 'cp');
    agentDir = join(dataDir, 'agent');
    seedPGlite(cpDir);
    const port = await lateBoundPort() // bound again after each kill;
    const serverArgs = ['server', '--port', String(port), '--data-dir', cpDir, ...(resendAfter !== undefined ? ['--resend-after', resendAfter] : [])];
    const server1 = spawnDenv(serverArgs);
    children.push(server1);
    await server1.waitForOutput(/127\.0\.0\.1/);
    const api = new Api(`http://127.0.0.1:${port}`, readFileSync(join(cpDir, 'admin-token'), 'utf8').trim());
    const key = (await api.post('/v1/enrollment-keys', {})).body.key;
    const agent = startAgentProcess({ control: api.url, enrollmentKey: key, dataDir: agentDir });
    children.push(agent);
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'agent');

    await api.post('/v1/projects', { name: 'slow' });
    const res = await api.post('/v1/projects/slow/deploy', { compose: compose('v1', { STARTUP_DELAY_MS: '4000' }) });
    expect(res.status).toBe(202);
    const id = res.body.deployment.id;
    await waitFor(async () => (await api.get(`/v1/deployments/${id}`)).body.phases.find((p: { name: string }) => p.name === 'prepare').status === 'running', 20_000, 'prepare to run');

    await server1.kill('SIGKILL');
    const server2 = spawnDenv(serverArgs);
    children.push(server2);
    await server2.waitForOutput(/127\.0\.0\.1/);
    const dep = await api.finished(id, 90_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    expect(dep.phases.every((p) => p.status === 'ok' || p.status === 'skipped')).toBe(true);
    const env = (await api.get(`/v1/envs/${dep.env}`)).body;
    expect(await (await fetch(env.endpoints[0].url)).text()).toMatch(/^v1 /);
    // env.create was applied once: one service process for the env, the one serving
    const pids = agentServicePids(agentDir);
    expect(pids).toHaveLength(1);
    expect(await (await fetch(env.endpoints[0].url)).text()).toContain(` ${pids[0]}`);
    const finished = (await api.get(`/v1/events?subject=dep:${id}`)).body.items.filter((e: { type: string }) => e.type === 'deployment.finished');
    expect(finished).toHaveLength(1);
    // The env.create command, from the agent's record: the control plane may never have recorded
    // its send (killed between the socket write and the update), and when the agent's kept result
    // reaches the new control plane before its re-send, no `cmd_sent` event is ever written.
    const creates = deliveryLog().filter((e) => e.kind === 'env.create' && e.env === dep.env);
    expect(new Set(creates.map((e) => e.id)).size).toBe(1); // one command, however often delivered
    const seen = creates.map((e) => e.source);
    expect(seen.filter((d: string) => d === 'ran')).toHaveLength(1); // applied once, either way
    for (const d of seen) expect(['ran', 'joined', 'stored']).toContain(d); // never run a second time
  });
});

describe('agent killed', () => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('leaves the app serving; the restarted agent adopts it (same process) and later retires it for v2', async () => {
    h = await startHarness();
    await h.api.post('/v1/projects', { name: 'keep' });
    const first = await h.api.finished((await h.api.post('/v1/projects/keep/deploy', { compose: compose('v1') })).body.deployment.id);
    expect(first.status).toBe('succeeded');
    const env = (await h.api.get(`/v1/envs/${first.env}`)).body;
    const [pid] = agentServicePids(h.agentDir);
    expect(pid).toBeGreaterThan(0);

    await h.agent.kill('SIGKILL');
    expect(await (await fetch(env.endpoints[0].url)).text()).toBe(`v1 ${pid}`);

    h.agent = startAgentProcess({ control: h.cp.url, dataDir: h.agentDir, ports: h.ports });
    // The restarted agent adopts the running process (it says so), starts no second one, and it keeps serving.
    await h.agent.waitForOutput(new RegExp(`adopted ${first.env}/\\S+/web \\(pid ${pid}\\)`), 30_000);
    expect(agentServicePids(h.agentDir)).toEqual([pid]);
    expect(await (await fetch(env.endpoints[0].url)).text()).toBe(`v1 ${pid}`);
    // Deploying v2 retires the adopted v1, which only an agent that knew it could do.
    const again = await h.api.finished((await h.api.post('/v1/projects/keep/deploy', { compose: compose('v2') })).body.deployment.id, 60_000);
    expect(again.status, again.error ?? '').toBe('succeeded');
    const env2 = (await h.api.get(`/v1/envs/${first.env}`)).body;
    expect(await (await fetch(env2.endpoints[0].url)).text()).toMatch(/^v2 /);
    // the adopted v1 process was retired by the new agent: it knew it
    await waitFor(() => !alive(pid!), 10_000, 'v1 to be stopped');
    expect(agentServicePids(h.agentDir)).toHaveLength(1);
  });

  it('an agent killed in the middle of a command resumes it when it comes back: the deployment ends long before any timeout', async () => {
    h = await startHarness({ cp: { commandTimeoutMs: 120_000 } });
    await h.api.post('/v1/projects', { name: 'cut' });
    const res = await h.api.post('/v1/projects/cut/deploy', { compose: compose('v1', { STARTUP_DELAY_MS: '3000' }) });
    const id = res.body.deployment.id as string;
    await waitFor(async () => (await h.api.get(`/v1/deployments/${id}`)).body.phases.find((p: { name: string }) => p.name === 'prepare').status === 'running', 20_000, 'prepare to run');
    // Killed with env.create in flight: its result was never sent.
    await h.agent.kill('SIGKILL');
    const restartedAt = Date.now();
    h.agent = startAgentProcess({ control: h.cp.url, dataDir: h.agentDir, ports: h.ports });
    const dep = await h.api.finished(id, 60_000);
    expect(dep.status, dep.error ?? '').toBe('succeeded');
    // Resumed on reconnect (the re-sent env.create adopts the process the killed agent started),
    // not left to the 120 s phase timeout.
    expect(Date.now() - restartedAt).toBeLessThan(30_000);
    expect(agentServicePids(h.agentDir)).toHaveLength(1);
  });
});
