/**
 * A fleet of three machines (issue 14's must-show): two made by a `local` cloud (agents in network
 * namespaces of their own) and one reached by an `ssh` cloud — a real OpenSSH server (Debian's
 * openssh-server) running inside a network namespace this file makes, standing in for a machine
 * of the team's. The ssh cloud uploads this installation to it, installs the agent as a service
 * (denv's supervisor: no systemd here) with a single-use key, and the agent dials the control
 * plane at the URL the cloud was given (bridged into the namespace by test/helpers/netns-bridge.ts).
 * Each env answers on its own machine's address; PostgreSQL from Debian's packages, deployed on a
 * local machine, moves with its rows to the ssh machine (`denv env move`); destroying an env
 * deprovisions its machine; a changed host key is refused. Needs root, iproute2, iptables and openssh-server (.ci/run installs them).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { makeNamespace, namespaceExists, namespacePlan, removeNamespace, type NamespacePlan } from '../../src/control-plane/clouds/local/netns.js';
import type { Deployment } from '../../src/contracts/domain.js';
import { run } from '../../src/lib/exec.js';
import { loadComposeFile } from '../../src/cli/load-compose-file.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { bridgeIntoNamespace, type NetnsBridge } from '../helpers/netns-bridge.js';
import { denvJson } from '../helpers/processes.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';
import { freshDataDir } from '../helpers/stores.js';

const HELLO = fileURLToPath(new URL('../../examples/hello', import.meta.url));
const HELLO_COMPOSE = { services: { web: { command: ['node', 'server.js'], working_dir: HELLO, 'x-denv': { health: { path: '/healthz' } } } } };
const PG_EXAMPLE = fileURLToPath(new URL('../../examples/postgres/compose.yaml', import.meta.url));
// Subnets of this file's own: the local cloud's, and the one the ssh machine's namespace takes.
const LOCAL_SUBNET = '10.231.204.0/24';
const BOX_SUBNET = '10.231.205.0/28';


/** Pids of processes whose command line mentions `text`. */
async function processesMentioning(text: string): Promise<number[]> {
  const out = await run(['pgrep', '-f', '--', text]);
  return out.stdout.split('\n').filter(Boolean).map(Number);
}

describe('a fleet: two local machines and one over ssh', () => {
  let cp: ControlPlane;
  let api: Api;
  let box: NamespacePlan;
  let sshd: Sshd;
  let bridge: NetnsBridge;
  const work = mkdtempSync(join(tmpdir(), 'denv-fleet-'));
  // The ssh machine's install dir is in here, and its datasets below it: services' users pass through.
  chmodSync(work, 0o711);
  const installDir = join(work, 'box', 'denv');
  const dataDir = join(freshDataDir(), 'cp');
  const namespaces = new Set<string>();
  beforeAll(async () => {
    cp = await startControlPlane({ port: 0, dataDir, ...FAST_TIMINGS, joinTimeoutMs: 120_000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'hello' })).status).toBe(201);
    box = namespacePlan(`mch_fleetbox${process.pid}`, 0, BOX_SUBNET);
    await removeNamespace(box.ns);
    await makeNamespace(box);
    sshd = await startSshd({ netns: { ns: box.ns, address: box.ip } });
    bridge = await bridgeIntoNamespace(box.ns, 4600, new URL(cp.url).port ? Number(new URL(cp.url).port) : 80);
    writeFileSync(join(work, 'key'), sshd.clientKey, { mode: 0o600 });
  }, 120_000);
  afterAll(async () => {
    await cp?.close();
    await bridge?.close();
    await sshd?.stop();
    for (const ns of [...namespaces, box?.ns]) if (ns) await removeNamespace(ns);
    rmSync(work, { recursive: true, force: true });
  });

  async function deploy(env: string, cloud: string): Promise<Deployment> {
    const res = await api.post('/v1/projects/hello/deploy', { compose: HELLO_COMPOSE, env, target: { cloud } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return api.finished(res.body.deployment.id, 240_000);
  }
  const phase = (dep: Deployment, name: string) => dep.phases.find((p) => p.name === name)!;
  const evidence = (dep: Deployment, name: string) => phase(dep, name).evidence as Record<string, any>;

  it('deploys to each; every app answers on its own machine; destroying an env deprovisions its machine; a changed host key is refused', async () => {
    await denvJson(cp, ['cloud', 'add', 'here', '--provider', 'local', '--subnet', LOCAL_SUBNET, '--allow-path', HELLO]);
    const added = await denvJson(cp, ['cloud', 'add', 'boxes', '--provider', 'ssh', '--machine', `root@${box.ip}`, '--ssh-key', join(work, 'key'), '--control-url', bridge.url, '--install-dir', installDir, '--allow-path', HELLO]);
    // The key is kept, never shown.
    expect(added).toMatchObject({ provider: 'ssh', config: { machines: [`root@${box.ip}`], control_url: bridge.url, install_dir: installDir, allow_paths: [HELLO], pin_new_hosts: true } });
    expect(JSON.stringify(added)).not.toContain('PRIVATE KEY');

    const [one, two, three] = await Promise.all([deploy('one', 'here'), deploy('two', 'here'), deploy('three', 'boxes')]);
    for (const dep of [one, two]) if (typeof evidence(dep, 'provision').ref === 'string') namespaces.add(evidence(dep, 'provision').ref);
    for (const dep of [one, two, three]) expect(dep.status, `${dep.env}: ${dep.error}`).toBe('succeeded');
    expect(evidence(three, 'provision')).toEqual({ cloud: 'boxes', provider: 'ssh', ref: `root@${box.ip}`, ip: box.ip, name: 'boxes-1' });
    expect(phase(three, 'join').status).toBe('ok');

    // Three agents, three hosts, three addresses; each app answers on its own.
    const hostIds = [one, two, three].map((d) => evidence(d, 'join').host as string);
    expect(new Set(hostIds).size).toBe(3);
    const hosts = (await api.get('/v1/hosts')).body.items.filter((h: { id: string }) => hostIds.includes(h.id));
    expect(hosts.map((h: { status: string; kind: string }) => `${h.kind} ${h.status}`)).toEqual(['provider connected', 'provider connected', 'provider connected']);
    const addresses = [one, two, three].map((d) => evidence(d, 'provision').ip as string);
    expect(new Set(addresses).size).toBe(3);
    for (const [i, dep] of [one, two, three].entries()) {
      const env = (await api.get(`/v1/envs/${dep.env}`)).body;
      expect(env).toMatchObject({ status: 'running', host: hostIds[i] });
      expect(env.endpoints[0].url).toMatch(new RegExp(`^http://${addresses[i]!.replace(/\./g, '\\.')}:\\d+$`));
      expect(await (await fetch(env.endpoints[0].url)).text()).toMatch(/^Hello from denv! version ver_/);
    }

    // Real software across machines: PostgreSQL from Debian's packages on the first local machine,
    // rows written there (it listens on the machine's own loopback: psql runs in its namespace),
    // then moved with its data to the ssh machine, where the rows are read and written.
    const pgRes = await api.post('/v1/projects/hello/deploy', { compose: (await loadComposeFile(PG_EXAMPLE, { env: { PG_FSYNC: 'off' } })).model, env: 'pg', target: { host: hostIds[0] } });
    const pg = await api.finished(pgRes.body.deployment.id, 240_000);
    expect(pg.status, pg.error ?? '').toBe('succeeded');
    const psqlIn = async (ns: string, sql: string) => {
      const env = (await api.get(`/v1/envs/${pg.env}`)).body;
      const port = new URL(env.endpoints.find((e: { service: string }) => e.service === 'db').url).port;
      const r = await run(['ip', 'netns', 'exec', ns, 'psql', '-h', '127.0.0.1', '-p', port, '-U', 'postgres', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { timeoutMs: 20_000 });
      if (r.exitCode !== 0) throw new Error(`psql in ${ns}: ${r.stderr}`);
      return r.stdout.trim();
    };
    const firstNs = evidence(one, 'provision').ref as string;
    await psqlIn(firstNs, 'create table t (n int); insert into t select generate_series(1, 1000)');
    const moveRes = await api.post(`/v1/envs/${pg.env}/move`, { to: hostIds[2] });
    expect(moveRes.status, JSON.stringify(moveRes.body)).toBe(202);
    const moved = await api.finished(moveRes.body.deployment.id, 240_000);
    expect(moved.status, moved.error ?? '').toBe('succeeded');
    expect(evidence(moved, 'transfer')).toMatchObject({ format: 'tar', datasets: ['pgdata'] });
    // Nothing of it is left on the first machine: its postmaster stopped, its dataset and both
    // snapshots (the deploy's and the move's) deleted.
    expect(evidence(moved, 'retire')).toMatchObject({ host: hostIds[0], removed: { processes: 1, datasets: 1, snapshots: 2 } });
    const pgEnv = (await api.get(`/v1/envs/${pg.env}`)).body;
    expect(pgEnv.host).toBe(hostIds[2]);
    expect(pgEnv.endpoints[0].url).toMatch(new RegExp(`^http://${box.ip.replace(/\./g, '\\.')}:\\d+$`));
    expect(await psqlIn(box.ns, 'select count(*), sum(n) from t')).toBe('1000|500500');
    await psqlIn(box.ns, 'insert into t values (0)');
    // Gone from the ssh machine again, so that machine can be deprovisioned below.
    const pgGone = await api.req('DELETE', `/v1/envs/${pg.env}`);
    expect((await api.finished(pgGone.body.deployment.id)).status).toBe('succeeded');

    // The ssh machine: denv lives in install_dir, kept running by the supervisor (no systemd here);
    // its host key was pinned at first use.
    expect(JSON.parse(readFileSync(join(installDir, 'service.json'), 'utf8'))).toMatchObject({ kind: 'supervisor' });
    expect(existsSync(join(installDir, 'app', 'bin', 'denv'))).toBe(true);
    expect(existsSync(join(installDir, 'app', 'node_modules', 'vitest'))).toBe(false);
    const boxes = (await api.get('/v1/clouds')).body.items.find((c: { name: string }) => c.name === 'boxes');
    expect(boxes.config.known_hosts).toBe(sshd.knownHosts);
    expect(boxes.machines).toBe(1);

    // Its only machine is taken: another env cannot have it.
    const four = await deploy('four', 'boxes');
    expect(four.status).toBe('failed');
    expect(evidence(four, 'provision').error).toBe(`cloud boxes (ssh) could not make a machine: all 1 of its machines are in use (root@${box.ip}); add another or destroy an env on one`);

    // Destroying the env frees the machine: its agent stopped, denv's directory gone, the host removed.
    const destroyed = await api.req('DELETE', `/v1/envs/${three.env}`);
    expect((await api.finished(destroyed.body.deployment.id)).status).toBe('succeeded');
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.find((h: { id: string }) => h.id === hostIds[2])?.status === 'removed', 60_000, 'the ssh host to be removed');
    expect(existsSync(installDir)).toBe(false);
    expect(await processesMentioning(installDir)).toEqual([]);

    // The machine comes back with another host key: denv refuses to log in and installs nothing.
    await sshd.rekey();
    const five = await deploy('five', 'boxes');
    expect(five.status).toBe('failed');
    expect(evidence(five, 'provision').error).toMatch(new RegExp(`^cloud boxes \\(ssh\\) could not make a machine: root@${box.ip.replace(/\./g, '\\.')}: ssh: .*(REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed)`));
    expect(existsSync(installDir)).toBe(false);

    // The local machines go too once their envs are destroyed.
    for (const dep of [one, two]) {
      const res = await api.req('DELETE', `/v1/envs/${dep.env}`);
      expect((await api.finished(res.body.deployment.id)).status).toBe('succeeded');
    }
    await waitFor(async () => {
      const items = (await api.get('/v1/hosts')).body.items;
      return hostIds.every((id) => items.find((h: { id: string }) => h.id === id)?.status === 'removed');
    }, 60_000, 'every host to be removed');
    for (const ns of namespaces) expect(await namespaceExists(ns)).toBe(false);
  }, 600_000);
});
