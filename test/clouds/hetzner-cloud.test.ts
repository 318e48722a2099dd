/**
 * A hetzner cloud through the control plane (issue 14). Hetzner cannot be reached from these
 * machines: its API is a local server speaking the documented endpoints
 * (test/helpers/hetzner-api-server.ts), and the server it "makes" is played by this machine. The
 * test boots it as cloud-init would: it writes the user_data's files and runs its runcmd lines as
 * they are (Node check, the download of denv from GET /v1/install/denv.tar with the enrollment
 * key, `denv agent-service install` from what was downloaded), except that the metadata service
 * (169.254.169.254, not on loopback) is replaced by the answer 127.0.0.1. The agent so installed
 * joins, the app answers, and destroying the env deletes the server through the API.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseShell } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { METADATA_PUBLIC_IPV4 } from '../../src/control-plane/clouds/hetzner/cloud-init.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import type { Deployment } from '../../src/contracts/domain.js';
import { run, runOrThrow } from '../../src/lib/exec.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { startFakeHetzner, type FakeHetzner } from '../helpers/hetzner-api-server.js';
import { denvJson } from '../helpers/processes.js';
import { freshDataDir } from '../helpers/stores.js';

// A machine of a cloud has none of this machine's directories: the app is its command alone.
const SERVER = "require('http').createServer((q, s) => s.end(q.url === '/healthz' ? 'ok' : 'Hello from a hetzner machine')).listen(Number(process.env.PORT), '127.0.0.1')";
const COMPOSE = { services: { web: { command: ['node', '-e', SERVER], 'x-denv': { health: { path: '/healthz' } } } } };
const TOKEN = 'hz-token-5e4d3c2b1a';

interface CloudConfig {
  write_files: { path: string; content: string; permissions: string }[];
  runcmd: string[];
}

describe('a hetzner cloud (its API a local stand-in)', () => {
  let cp: ControlPlane;
  let api: Api;
  let hz: FakeHetzner;
  const machine = mkdtempSync(join(tmpdir(), 'denv-hz-machine-'));
  const installDir = join(machine, 'opt', 'denv');
  beforeAll(async () => {
    // Services' users reach their workloads below the machine's directory (as below /opt).
    chmodSync(machine, 0o711);
    cp = await startControlPlane({ port: 0, dataDir: join(freshDataDir(), 'cp'), ...FAST_TIMINGS, joinTimeoutMs: 120_000, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'hello' })).status).toBe(201);
    hz = await startFakeHetzner({ token: TOKEN });
  });
  afterAll(async () => {
    await run([process.execPath, join(installDir, 'app', 'bin', 'denv'), 'agent-service', 'remove', '--dir', installDir]);
    await cp?.close();
    await hz?.close();
    rmSync(machine, { recursive: true, force: true });
  });

  /** Boot the server Hetzner was asked for, as cloud-init would (see the file's comment). */
  async function boot(userData: string): Promise<void> {
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    const config = parseYaml(userData) as CloudConfig;
    for (const f of config.write_files) {
      rmSync(f.path, { force: true });
      await runOrThrow(['mkdir', '-p', join(f.path, '..')]);
      writeFileSync(f.path, f.content, { mode: Number.parseInt(f.permissions, 8) });
    }
    const metadata = `address="$(curl -fsS --retry 10 ${METADATA_PUBLIC_IPV4})"`;
    for (const line of config.runcmd) {
      const argv = parseShell(line) as string[];
      expect(argv.every((a) => typeof a === 'string'), line).toBe(true);
      if (argv[0] === 'set') continue; // the script's own `set -e`: here each line is checked instead
      const script = argv[2] ?? '';
      if (argv[0] === 'bash' && script.includes(METADATA_PUBLIC_IPV4)) {
        expect(script).toContain(metadata);
        argv[2] = script.replace(metadata, 'address=127.0.0.1');
      }
      const out = await run(argv, { timeoutMs: 300_000, env: { ...process.env, PATH: process.env.PATH ?? '/usr/bin:/bin' } });
      expect(out.exitCode, `${argv.slice(0, 2).join(' ')} …: ${out.stderr}`).toBe(0);
    }
  }

  it('provisions a server with cloud-init that installs denv from the control plane; the agent joins; destroying the env deletes the server', async () => {
    const cloud = await denvJson(cp, ['cloud', 'add', 'hz', '--provider', 'hetzner', '--api-url', hz.apiUrl, '--location', 'nbg1', '--control-url', cp.url, '--install-dir', installDir], { HCLOUD_TOKEN: TOKEN });
    expect(cloud).toMatchObject({ provider: 'hetzner', config: { api_url: hz.apiUrl, location: 'nbg1', server_type: 'cx22', image: 'ubuntu-24.04', control_url: cp.url, install_dir: installDir } });
    expect(JSON.stringify(cloud)).not.toContain(TOKEN);

    const res = await api.post('/v1/projects/hello/deploy', { compose: COMPOSE, env: 'web', target: { cloud: 'hz' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const finished: Promise<Deployment> = api.finished(res.body.deployment.id, 300_000);
    await waitFor(async () => hz.requests.some((r) => r.method === 'POST' && r.path === '/v1/servers'), 60_000, 'the server to be created');
    const created = hz.requests.find((r) => r.method === 'POST' && r.path === '/v1/servers')!;
    expect(created.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const body = created.body as { name: string; location: string; user_data: string; labels: Record<string, string> };
    // Named after the host and the end of the machine's id: unique in the Hetzner project.
    const machineId = body.labels['denv-machine']!;
    expect(machineId).toMatch(/^mch_/);
    expect(body).toMatchObject({ name: `hz-1-${machineId.slice(-8)}`, location: 'nbg1', server_type: 'cx22', image: 'ubuntu-24.04', labels: { 'managed-by': 'denv' } });

    // The download wants a live enrollment key.
    const key = (parseYaml(body.user_data) as CloudConfig).write_files.find((f) => f.path.endsWith('/enrollment-key'))!.content;
    expect((await fetch(`${cp.url}/v1/install/denv.tar`)).status).toBe(401);
    expect((await fetch(`${cp.url}/v1/install/denv.tar`, { headers: { authorization: `Bearer ${cp.adminToken}` } })).status).toBe(401);
    await boot(body.user_data);

    const dep = await finished;
    expect(dep.status, `${dep.error}`).toBe('succeeded');
    const provision = dep.phases.find((p) => p.name === 'provision')!;
    const server = [...hz.servers.values()][0]!;
    expect(provision).toMatchObject({ status: 'ok', evidence: { cloud: 'hz', provider: 'hetzner', ref: String(server.id), ip: server.ipv4, name: 'hz-1' } });
    const hostId = (dep.phases.find((p) => p.name === 'join')!.evidence as { host: string }).host;
    const env = (await api.get(`/v1/envs/${dep.env}`)).body;
    expect(env).toMatchObject({ status: 'running', host: hostId });
    expect(await (await fetch(env.endpoints[0].url)).text()).toBe('Hello from a hetzner machine');
    // The downloaded installation runs the control plane's version; the key files are gone and the key is spent.
    expect(JSON.parse(readFileSync(join(installDir, 'app', 'package.json'), 'utf8')).version).toBe(JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')).version);
    expect(() => readFileSync(join(installDir, 'enrollment-key'))).toThrow();
    expect((await fetch(`${cp.url}/v1/install/denv.tar`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

    const destroyed = await api.req('DELETE', `/v1/envs/${dep.env}`);
    expect((await api.finished(destroyed.body.deployment.id)).status).toBe('succeeded');
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.find((h: { id: string }) => h.id === hostId)?.status === 'removed', 60_000, 'the host to be removed');
    expect(hz.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/v1/servers/${server.id}`]);
    expect(hz.servers.size).toBe(0);
  }, 400_000);
});
