/**
 * Clouds (issue 14): a team with no host deploys through a `local` cloud, which makes a real
 * machine — a `denv agent` process in a network namespace of its own, with its own address — and
 * the app answers on that address; destroying the env deprovisions the machine. With only a
 * `manual` cloud, provision fails with seed 000's message. Needs root and iproute2/iptables
 * (CI runs as root); namespaces are made by the product, and removed by this file if a failure
 * left one.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { removeNamespace, namespaceExists } from '../../src/control-plane/clouds/local/netns.js';
import { NO_HOST_MESSAGE } from '../../src/control-plane/clouds/clouds.js';
import type { Deployment } from '../../src/contracts/domain.js';
import { run } from '../../src/lib/exec.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { denvJson } from '../helpers/processes.js';
import { freshDataDir } from '../helpers/stores.js';

const HELLO = fileURLToPath(new URL('../../examples/hello', import.meta.url));
// The example as its Compose file says, with working_dir made absolute (as `denv deploy` does).
const HELLO_COMPOSE = { services: { web: { command: ['node', 'server.js'], working_dir: HELLO, 'x-denv': { health: { path: '/healthz' } } } } };
// A subnet of its own, so a machine left by another run never takes this file's addresses.
const SUBNET = '10.231.200.0/24';


describe('clouds', () => {
  let cp: ControlPlane;
  let api: Api;
  const dataDir = join(freshDataDir(), 'cp');
  const namespaces = new Set<string>();
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, dataDir, ...FAST_TIMINGS, joinTimeoutMs: 60_000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'hello' })).status).toBe(201);
  });
  afterAll(async () => {
    await cp?.close();
    for (const ns of namespaces) await removeNamespace(ns);
  });

  async function deploy(env: string, extra: Record<string, unknown> = {}): Promise<Deployment> {
    const res = await api.post('/v1/projects/hello/deploy', { compose: HELLO_COMPOSE, env, ...extra });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return api.finished(res.body.deployment.id, 120_000);
  }
  const phase = (dep: Deployment, name: string) => dep.phases.find((p) => p.name === name)!;

  it('refuses a provider it does not have, a bad subnet, a relative allow path, incomplete ssh and hetzner settings and a second cloud of one name; changes nothing', async () => {
    const bad = [
      [{ name: 'x', provider: 'aws' }, /provider must be manual, local, ssh or hetzner/],
      [{ name: 'x', provider: 'ssh', machines: ['root@10.0.0.5'], control_url: 'http://10.0.0.1:4600' }, /private_key/],
      [{ name: 'x', provider: 'ssh', machines: ['10.0.0.5'], private_key: '-----BEGIN OPENSSH PRIVATE KEY-----', control_url: 'http://10.0.0.1:4600' }, /expected user@host/],
      [{ name: 'x', provider: 'ssh', machines: ['root@10.0.0.5'], private_key: 'ssh-ed25519 AAAA…', control_url: 'http://10.0.0.1:4600' }, /not a public one/],
      [{ name: 'x', provider: 'ssh', machines: ['root@10.0.0.5'], private_key: '-----BEGIN OPENSSH PRIVATE KEY-----', control_url: 'http://10.0.0.1:4600', install_dir: '/' }, /a directory of its own/],
      [{ name: 'x', provider: 'hetzner', token: 't' }, /control_url/],
      [{ name: 'x', provider: 'local', subnet: '10.0.0.0/30' }, /subnet must be an IPv4 network/],
      [{ name: 'x', provider: 'local', allow_paths: ['srv'] }, /absolute path/],
      [{ name: 'x', provider: 'manual', subnet: '10.0.0.0/16' }, /subnet/],
    ] as const;
    for (const [body, message] of bad) {
      const res = await api.post('/v1/clouds', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    expect((await api.get('/v1/clouds')).body.items).toEqual([]);
  });

  it('with no host and only a manual cloud, provision fails with seed 000 message and the later phases are skipped', async () => {
    const added = await denvJson(cp, ['cloud', 'add', 'rack', '--provider', 'manual']);
    expect(added).toMatchObject({ name: 'rack', provider: 'manual', deprovision: 'when_empty', machines: 0 });
    expect((await api.post('/v1/clouds', { name: 'rack', provider: 'manual' })).status).toBe(409);
    const dep = await deploy('manual-only');
    expect(dep.status).toBe('failed');
    expect(phase(dep, 'place').evidence).toEqual({ host: null, reason: 'no connected host; provisioning' });
    expect(phase(dep, 'provision')).toMatchObject({ status: 'failed', evidence: { cloud: null, provider: null, ref: null, ip: null, name: null, error: NO_HOST_MESSAGE } });
    expect(dep.error).toBe(`provision: ${NO_HOST_MESSAGE}`);
    expect(dep.phases.slice(3, -1).map((p) => p.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    // Asking for the manual cloud by name says why it cannot.
    const named = await deploy('manual-named', { target: { cloud: 'rack' } });
    expect(phase(named, 'place').evidence).toEqual({ host: null, reason: 'target rack' });
    expect(phase(named, 'provision').evidence).toMatchObject({ cloud: 'rack', error: `cloud rack (manual) cannot provision: ${NO_HOST_MESSAGE}` });
  });

  it('a team with no host deploys through a local cloud: a machine with its own address joins, the app answers there, and destroying the env deprovisions it', async () => {
    await denvJson(cp, ['cloud', 'add', 'here', '--provider', 'local', '--subnet', SUBNET, '--allow-path', HELLO]);
    const dep = await deploy('production');
    const provision = phase(dep, 'provision');
    if (provision.evidence && typeof (provision.evidence as { ref?: unknown }).ref === 'string') namespaces.add((provision.evidence as { ref: string }).ref);
    expect(dep.status, `${dep.error}`).toBe('succeeded');
    expect(phase(dep, 'place').evidence).toEqual({ host: null, reason: 'no connected host; provisioning' });
    expect(provision).toMatchObject({ status: 'ok', evidence: { cloud: 'here', provider: 'local', ref: expect.stringMatching(/^denv-/), ip: expect.stringMatching(/^10\.231\.200\.\d+$/), name: 'here-1' } });
    const { ip, ref } = provision.evidence as { ip: string; ref: string };
    expect(await namespaceExists(ref)).toBe(true);
    const joined = phase(dep, 'join');
    expect(joined.status).toBe('ok');
    const hostId = (joined.evidence as { host: string }).host;
    expect(joined.evidence).toEqual({ host: hostId, joined_in_ms: expect.any(Number) });

    // The new host: a provider host named after its machine, reporting its own address.
    const host = (await api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === hostId);
    expect(host).toMatchObject({ name: 'here-1', kind: 'provider', cloud: 'here', status: 'connected', facts: { address: ip } });
    // No image services there: Docker's engine is this machine's (its agent runs with --no-docker).
    expect(host.facts.runtimes).toEqual(['process']);
    const env = (await api.get(`/v1/envs/${dep.env}`)).body;
    expect(env).toMatchObject({ status: 'running', host: hostId });
    expect(env.endpoints[0].url).toMatch(new RegExp(`^http://${ip.replace(/\./g, '\\.')}:\\d+$`));
    // From this machine's own network, through the namespace's address: the example answers.
    const answer = await (await fetch(env.endpoints[0].url)).text();
    expect(answer).toMatch(/^Hello from denv! version ver_/);
    const events = (await api.get(`/v1/events?subject=dep:${dep.id}`)).body.items;
    const provisioned = events.find((e: { type: string }) => e.type === 'host.provisioned')?.data;
    expect(provisioned).toMatchObject({ cloud: 'here', provider: 'local', ref, ip, name: 'here-1', machine: expect.stringMatching(/^mch_/) });
    const machineDir = join(`${dataDir}-machines`, provisioned.machine);
    expect(existsSync(join(machineDir, 'agent'))).toBe(true);
    expect((await denvJson(cp, ['cloud', 'ls'])).items.find((c: { name: string }) => c.name === 'here')).toMatchObject({ provider: 'local', machines: 1, config: { subnet: SUBNET } });
    // A cloud with a machine stays.
    expect((await api.req('DELETE', '/v1/clouds/here')).status).toBe(409);

    const destroyed = await api.req('DELETE', `/v1/envs/${dep.env}`);
    expect(destroyed.status, JSON.stringify(destroyed.body)).toBe(202);
    expect((await api.finished(destroyed.body.deployment.id)).status).toBe('succeeded');
    // Deprovisioned once empty: the host removed, the machine's namespace and files gone.
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === hostId)?.status === 'removed', 30_000, 'the host to be removed');
    expect(await namespaceExists(ref)).toBe(false);
    const hostEvents = (await api.get(`/v1/events?subject=host:${hostId}`)).body.items.map((e: { type: string; data: { status?: string } }) => e.data.status ?? e.type);
    expect(hostEvents).toEqual(expect.arrayContaining(['host.enrolled', 'deprovisioning', 'removed']));
    expect(existsSync(machineDir)).toBe(false);
    expect((await denvJson(cp, ['cloud', 'rm', 'here'])).name).toBe('here');
    expect((await api.get('/v1/clouds')).body.items.map((c: { name: string }) => c.name)).toEqual(['rack']);
  });
});

describe('a local machine whose agent ends before it joins', () => {
  let cp: ControlPlane;
  let api: Api;
  let ns: string | null = null;
  beforeAll(async () => {
    // No agent is admitted: the machine's agent keeps knocking and never joins.
    cp = await startControlPlane({ port: 0, dataDir: join(freshDataDir(), 'cp'), ...FAST_TIMINGS, joinTimeoutMs: 300_000, agentAdmission: { maxUnauthenticated: 0 }, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'hello' })).status).toBe(201);
    expect((await api.post('/v1/clouds', { name: 'here', provider: 'local', subnet: '10.231.206.0/24', allow_paths: [HELLO] })).status).toBe(201);
  });
  afterAll(async () => {
    await cp?.close();
    if (ns) await removeNamespace(ns);
  });

  it('fails join at once, saying how the agent ended, instead of waiting out the 6 minutes', async () => {
    const res = await api.post('/v1/projects/hello/deploy', { compose: HELLO_COMPOSE, env: 'orphan' });
    const id = res.body.deployment.id;
    // Once the machine is made, its agent (the namespace's only process) is killed.
    const provisioned = await waitFor(async () => {
      const dep: Deployment = (await api.get(`/v1/deployments/${id}`)).body;
      const p = dep.phases.find((x) => x.name === 'provision');
      return p?.status === 'ok' ? (p.evidence as { ref: string }) : undefined;
    }, 60_000, 'provision to finish');
    ns = provisioned.ref;
    // The agent: the namespace's `denv agent` process (it may have a short-lived child of its own at start).
    const pids = (await run(['ip', 'netns', 'pids', ns])).stdout.split('\n').filter(Boolean).map(Number);
    const agents = pids.filter((pid) => {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.includes('agent') && argv.includes('--no-docker');
    });
    expect(agents.length, `processes in ${ns}: ${pids.join(', ')}`).toBe(1);
    const agent = agents[0]!;
    // Its stdout is its agent.log: killed once it has said where it connects.
    await waitFor(() => readFileSync(`/proc/${agent}/fd/1`, 'utf8').includes('connecting to unix:'), 30_000, 'the agent to start');
    const log = readlinkSync(`/proc/${agent}/fd/1`);
    const killedAt = Date.now();
    process.kill(agent, 'SIGKILL');
    const dep = await api.finished(id, 60_000);
    expect(dep.status).toBe('failed');
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    const join = dep.phases.find((x) => x.name === 'join')!;
    expect(join).toMatchObject({ status: 'failed', evidence: { host: null, joined_in_ms: null } });
    // The end of what the agent wrote (it is dead: its log is final).
    const tail = readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' | ');
    expect(tail).not.toBe('');
    expect(dep.error).toBe(`join: the provisioned machine's agent cannot join: its agent was killed by SIGKILL; agent.log ends: ${tail}`);
  });
});
