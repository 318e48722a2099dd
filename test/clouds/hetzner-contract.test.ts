/**
 * The hetzner cloud provider — CONTRACT-TESTED ONLY: Hetzner cannot be reached from these
 * machines, so the provider is tested against a local server speaking its documented API
 * (test/helpers/hetzner-api-server.ts: the Servers and Actions endpoints denv uses, as
 * https://docs.hetzner.cloud/ documents them). These tests assert the exact requests (method,
 * path and query, the Bearer token, the create body) and what the provider makes of the answers.
 * Actions in the stand-in answer `running` once before they end, so every wait really polls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cloudInit } from '../../src/control-plane/clouds/hetzner/cloud-init.js';
import { hetznerProvider, listMachines, serverName, type HetznerConfig } from '../../src/control-plane/clouds/hetzner/hetzner-provider.js';
import { hetznerApi } from '../../src/control-plane/clouds/hetzner/hetzner-api.js';
import { freePort } from '../helpers/free-port.js';
import { startFakeHetzner, type FakeHetzner } from '../helpers/hetzner-api-server.js';
import { startRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'hz-token-9f8e7d6c5b4a';
const ORDER = { machine: 'mch_7f3a9c01', name: 'hetzner-1', enrollmentKey: 'enk_1s2e3c4r5e6t' };
let hz: FakeHetzner;

afterEach(async () => {
  await hz?.close();
});

const start = async () => {
  hz = await startFakeHetzner({ token: TOKEN });
  const config: HetznerConfig = { token: TOKEN, api_url: hz.apiUrl, location: 'fsn1', server_type: 'cx22', image: 'ubuntu-24.04', control_url: 'https://denv.example.com' };
  return config;
};
const calls = () => hz.requests.map((r) => `${r.method} ${r.path}`);
const FAST = { pollMs: 1 };

describe('hetzner provider (contract tests against a local server speaking the Hetzner Cloud API)', () => {
  it('create: looks for a leftover, sends the documented create request, waits for its actions, answers ref and IPv4', async () => {
    const config = await start();
    const made = await hetznerProvider(config, FAST).create(ORDER);

    expect(made).toEqual({ ref: '1', ip: '203.0.113.1', detail: { server_id: 1, location: 'fsn1', server_type: 'cx22', image: 'ubuntu-24.04' } });
    expect(calls()).toEqual([
      'GET /v1/servers?label_selector=denv-machine%3Dmch_7f3a9c01&page=1&per_page=50',
      'POST /v1/servers',
      'GET /v1/actions/1', // create_server: running
      'GET /v1/actions/1', // success
      'GET /v1/actions/2', // start_server: running
      'GET /v1/actions/2', // success
      'GET /v1/servers/1',
    ]);
    for (const r of hz.requests) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const post = hz.requests[1]!;
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.body).toEqual({
      name: 'hetzner-1-7f3a9c01',
      server_type: 'cx22',
      image: 'ubuntu-24.04',
      location: 'fsn1',
      start_after_create: true,
      user_data: cloudInit({ ...ORDER, controlUrl: 'https://denv.example.com', installDir: '/opt/denv' }),
      labels: { 'denv-machine': 'mch_7f3a9c01', 'managed-by': 'denv' },
      public_net: { enable_ipv4: true, enable_ipv6: true },
    });
    expect(hz.servers.get(1)).toMatchObject({ name: 'hetzner-1-7f3a9c01', status: 'running', labels: { 'denv-machine': 'mch_7f3a9c01', 'managed-by': 'denv' } });
  });

  it('ssh_keys and install_dir, when set, are in the request', async () => {
    const config = await start();
    await hetznerProvider({ ...config, ssh_keys: ['ops@laptop', '4711'], install_dir: '/srv/denv' }, FAST).create(ORDER);
    const body = hz.requests.find((r) => r.method === 'POST')!.body as Record<string, unknown>;
    expect(body.ssh_keys).toEqual(['ops@laptop', '4711']);
    expect(body.user_data).toBe(cloudInit({ ...ORDER, controlUrl: 'https://denv.example.com', installDir: '/srv/denv' }));
  });

  it('create again for the same machine: the labelled leftover is deleted (and its action awaited) before the new server is made', async () => {
    const config = await start();
    const provider = hetznerProvider(config, FAST);
    await provider.create(ORDER);
    const other = hz.addServer({ name: 'hetzner-2', labels: { 'denv-machine': 'mch_other', 'managed-by': 'denv' } });
    hz.requests.length = 0;

    const again = await provider.create(ORDER);

    expect(calls()).toEqual([
      'GET /v1/servers?label_selector=denv-machine%3Dmch_7f3a9c01&page=1&per_page=50',
      'DELETE /v1/servers/1',
      'GET /v1/actions/3', // delete_server: running
      'GET /v1/actions/3', // success
      'POST /v1/servers', // the name is free again
      'GET /v1/actions/4',
      'GET /v1/actions/4',
      'GET /v1/actions/5',
      'GET /v1/actions/5',
      `GET /v1/servers/${again.ref}`,
    ]);
    expect(again.ref).toBe('3');
    expect([...hz.servers.keys()].sort()).toEqual([other.id, 3].sort());
  });

  it('destroy deletes the server and waits for the action; destroying it again (404) is fine', async () => {
    const config = await start();
    const provider = hetznerProvider(config, FAST);
    const made = await provider.create(ORDER);
    hz.requests.length = 0;

    await provider.destroy(made);
    expect(calls()).toEqual(['DELETE /v1/servers/1', 'GET /v1/actions/3', 'GET /v1/actions/3']);
    expect(hz.actions.get(3)).toMatchObject({ command: 'delete_server', status: 'success' });
    expect(hz.servers.size).toBe(0);

    hz.requests.length = 0;
    await provider.destroy(made);
    expect(calls()).toEqual(['DELETE /v1/servers/1']);
  });

  it('a bad token: a clear error naming the API’s code and status, without either token', async () => {
    const config = await start();
    const wrong = 'hz-wrong-0123456789';
    const err = await hetznerProvider({ ...config, token: wrong }, FAST).create(ORDER).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('hetzner: unauthorized: unable to authenticate (HTTP 401)');
    expect(err?.message).not.toContain(wrong);
    expect(err?.message).not.toContain(TOKEN);
    expect(calls()).toEqual(['GET /v1/servers?label_selector=denv-machine%3Dmch_7f3a9c01&page=1&per_page=50']);
    await expect(listMachines({ token: wrong, api_url: hz.apiUrl })).rejects.toThrow('hetzner: unauthorized: unable to authenticate (HTTP 401)');
  });

  it('a create action ending in error fails naming the server, and the server is deleted rather than left billed', async () => {
    const config = await start();
    hz.outcome = (command) => (command === 'create_server' ? { code: 'server_create_failed', message: 'no capacity in fsn1-dc1' } : 'success');

    await expect(hetznerProvider(config, FAST).create(ORDER)).rejects.toThrow('hetzner: server hetzner-1-7f3a9c01 (id 1): create_server failed: server_create_failed: no capacity in fsn1-dc1');
    expect(calls()).toEqual([
      'GET /v1/servers?label_selector=denv-machine%3Dmch_7f3a9c01&page=1&per_page=50',
      'POST /v1/servers',
      'GET /v1/actions/1',
      'GET /v1/actions/1',
      'DELETE /v1/servers/1',
    ]);
    expect(hz.servers.size).toBe(0);
  });

  it('an action still running at the deadline fails naming the server', async () => {
    const config = await start();
    hz.outcome = (command) => (command === 'create_server' ? 'running' : 'success');
    await expect(hetznerProvider(config, { pollMs: 5, timeoutMs: 60 }).create(ORDER)).rejects.toThrow(/^hetzner: server hetzner-1-7f3a9c01 \(id 1\): create_server \(action 1\) still running after 60 ms$/);
    expect(calls().at(-1)).toBe('DELETE /v1/servers/1');
  });

  it('listMachines: what denv made (managed-by=denv), every page', async () => {
    const config = await start();
    for (let i = 1; i <= 53; i++) hz.addServer({ name: `m-${i}`, labels: { 'denv-machine': `mch_${i}`, 'managed-by': 'denv' }, ipv4: i !== 7 });
    hz.addServer({ name: 'not-ours', labels: { team: 'web' } });

    const listed = await listMachines(config);

    expect(calls()).toEqual(['GET /v1/servers?label_selector=managed-by%3Ddenv&page=1&per_page=50', 'GET /v1/servers?label_selector=managed-by%3Ddenv&page=2&per_page=50']);
    expect(listed).toHaveLength(53);
    expect(listed[0]).toEqual({ ref: '1', ip: '203.0.113.1', machine: 'mch_1' });
    expect(listed[6]).toEqual({ ref: '7', ip: null, machine: 'mch_7' });
    expect(listed.map((m) => m.machine)).toEqual(Array.from({ length: 53 }, (_, i) => `mch_${i + 1}`));
  });

  it('each request has its own timeout; an API that cannot be reached says so; neither message has the token', async () => {
    const silent = await startRecordingServer(() => {}); // reads the request, never answers
    try {
      const err = await hetznerApi({ token: TOKEN, apiUrl: `http://127.0.0.1:${silent.port}/v1`, timeoutMs: 50 }).getServer(1).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toBe('hetzner: GET /servers/1: no answer within 50 ms');
      expect(silent.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/servers/1']);
    } finally {
      await silent.close();
    }
    const port = await freePort();
    const err = await hetznerApi({ token: TOKEN, apiUrl: `http://127.0.0.1:${port}/v1` }).getAction(9).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe(`hetzner: GET /actions/9: cannot reach 127.0.0.1:${port}: ECONNREFUSED`);
    expect(err?.message).not.toContain(TOKEN);
  });
});

describe('serverName', () => {
  it('is the host name and the end of the machine id, within a 63-character hostname label', () => {
    expect(serverName({ name: 'hz-1', machine: 'mch_0a1b2c3d4e5f' })).toBe('hz-1-2c3d4e5f');
    const long = serverName({ name: `${'a'.repeat(62)}-12`, machine: 'mch_0a1b2c3d4e5f' });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toBe(`${'a'.repeat(54)}-2c3d4e5f`);
  });
});
