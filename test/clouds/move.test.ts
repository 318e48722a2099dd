/**
 * `denv env move` (issue 14): an env with its data goes from one host to another over the two
 * agents' own connections — real software nobody here wrote: PostgreSQL 15 from Debian's packages
 * (examples/postgres), its rows written on the first host and read on the second. Two real agent
 * processes with datasets of their own, on both drivers: btrfs on both hosts (a `btrfs send`
 * stream) and plain directories (a tar archive). Then what a move must refuse, and a move that
 * fails on the new host (process services disabled there): the env never leaves, its old host
 * still serves, and the new host keeps nothing.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../../src/contracts/domain.js';
import { run } from '../../src/lib/exec.js';
import { loadComposeFile } from '../../src/cli/load-compose-file.js';
import { waitFor } from '../helpers/api.js';
import { mountBtrfs, type BtrfsMount } from '../helpers/btrfs.js';
import { agentServicePids, killServiceProcesses, startHarness, type Harness } from '../helpers/harness.js';
import { denvJson, startAgentProcess, testPortRange, type Child } from '../helpers/processes.js';
import { freshDataDir } from '../helpers/stores.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const EXAMPLE = fileURLToPath(new URL('../../examples/postgres/compose.yaml', import.meta.url));

async function psql(port: number, sql: string): Promise<string> {
  const r = await run(['psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { timeoutMs: 20_000 });
  if (r.exitCode !== 0) throw new Error(`psql: ${r.stderr}`);
  return r.stdout.trim();
}

interface Host {
  readonly id: string;
  readonly dir: string;
  readonly datasets: string;
  readonly agent: Child;
}

describe.each(['btrfs', 'copy'] as const)('env move of PostgreSQL between two hosts on the %s driver', (driver) => {
  let h: Harness;
  let fs: BtrfsMount | null = null;
  let root: string;
  const extra: Host[] = [];

  /** Another real agent with a data dir, port range and dataset root of its own (agent.yaml optional). */
  async function addHost(name: string, agentYaml?: string): Promise<Host> {
    const dir = join(freshDataDir('denv-move-host-'), 'agent');
    const datasets = join(root, `${name}-datasets`);
    let config: string | undefined;
    if (agentYaml) writeFileSync((config = join(freshDataDir('denv-move-config-'), 'agent.yaml')), agentYaml);
    const agent = startAgentProcess({ control: h.cp.url, enrollmentKey: await h.cp.createEnrollmentKey(), dataDir: dir, name, ports: testPortRange(), datasets, config });
    const id = await waitFor(async () => {
      const { body } = await h.api.get('/v1/hosts');
      return (body.items as { id: string; name: string; status: string }[]).find((x) => x.name === name && x.status === 'connected')?.id;
    }, 30_000, `host ${name} to connect`);
    const host = { id, dir, datasets, agent };
    extra.push(host);
    return host;
  }

  beforeAll(async () => {
    if (!existsSync(`${PG_BIN}/postgres`)) throw new Error(`${PG_BIN}/postgres is missing: .ci/run installs Debian's postgresql package`);
    root = driver === 'btrfs' ? (fs = await mountBtrfs()).dir : freshDataDir('denv-move-datasets-');
    h = await startHarness({ datasets: join(root, 'first-datasets') });
    expect((await h.api.post('/v1/projects', { name: 'pg' })).status).toBe(201);
  });
  afterAll(async () => {
    for (const x of extra) {
      await x.agent.kill('SIGTERM');
      killServiceProcesses(x.dir);
    }
    await h?.close();
    await fs?.unmount();
  });

  const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
  const dbPort = async (id: string) => Number(new URL((await envOf(id)).endpoints.find((e) => e.service === 'db')!.url).port);

  it('moves the env with its rows; the old host keeps nothing of it', async () => {
    const compose = (await loadComposeFile(EXAMPLE, { env: { PG_FSYNC: 'off' } })).model;
    const res = await h.api.post('/v1/projects/pg/deploy', { compose, env: 'production' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const deployed = await h.api.finished(res.body.deployment.id, 120_000);
    expect(deployed.status, deployed.error ?? '').toBe('succeeded');
    const envId = deployed.env;
    const oldPort = await dbPort(envId);
    await psql(oldPort, "create table t (n int, s text); insert into t select g, repeat('x', 100) from generate_series(1, 5000) g");
    const before = await psql(oldPort, 'select count(*), sum(n) from t');
    expect((await envOf(envId)).host).toBe(h.hostId);
    expect(existsSync(join(root, 'first-datasets', envId))).toBe(true);

    const second = await addHost('second');
    // Through the CLI, as a user would: it follows the move to its end (--watch) and prints the final deployment.
    const moved = (await denvJson(h.cp, ['env', 'move', envId, '--to', 'second', '--watch'])) as Deployment;
    expect(moved.kind).toBe('move');
    expect(moved.status, moved.error ?? '').toBe('succeeded');
    expect(moved.phases.map((p) => [p.name, p.status])).toEqual([
      ['place', 'ok'], ['snapshot', 'ok'], ['transfer', 'ok'], ['start', 'ok'], ['health', 'ok'], ['switch', 'ok'], ['retire', 'ok'], ['verdict', 'ok'],
    ]);
    const ev = (name: string) => moved.phases.find((p) => p.name === name)!.evidence as Record<string, any>;
    expect(ev('place')).toMatchObject({ from: h.hostId, to: second.id, format: driver === 'btrfs' ? 'btrfs' : 'tar' });
    expect(ev('snapshot')).toMatchObject({ datasets: ['pgdata'], consistent: true });
    const transfer = ev('transfer');
    expect(transfer.format).toBe(driver === 'btrfs' ? 'btrfs' : 'tar');
    expect(transfer.datasets).toEqual(['pgdata']);
    expect(transfer.sha256).toMatch(/^[0-9a-f]{64}$/);
    // A PostgreSQL cluster with 5000 rows is tens of MB; it crossed in chunks of at most 1 MiB.
    expect(transfer.bytes).toBeGreaterThan(10 * 1024 ** 2);
    expect(transfer.chunks).toBe(Math.ceil(transfer.bytes / (1024 * 1024)));
    expect(ev('switch')).toMatchObject({ from: h.hostId, to: second.id });
    // The move's own snapshot is not kept on the new host (no version names it).
    expect(ev('verdict')).toMatchObject({ runs_on: second.id, bytes: transfer.bytes, move_snapshot: { removed: [`move-${moved.id}`] } });

    // The env runs on the second host, on a port of its range, with every row.
    const env = await envOf(envId);
    expect(env.host).toBe(second.id);
    // Running there: a live status pushed while the snapshot held the services paused may have
    // read them as not ready (degraded); the new host's next one says they are.
    await waitFor(async () => (await envOf(envId)).status === 'running' || undefined, 30_000, 'the env to be running on the new host');
    const newPort = await dbPort(envId);
    expect(newPort).not.toBe(oldPort);
    expect(await psql(newPort, 'select count(*), sum(n) from t')).toBe(before);
    await psql(newPort, 'insert into t values (0, $$after the move$$)');
    expect(await psql(newPort, 'select count(*) from t')).toBe('5001');
    // Nothing of it is left on the first host: no process, no port answering, no dataset.
    expect(agentServicePids(h.agentDir)).toEqual([]);
    expect(existsSync(join(root, 'first-datasets', envId))).toBe(false);
    await expect(psql(oldPort, 'select 1')).rejects.toThrow();
    // The datasets on the second host are the env's own (and the transfer's files are gone).
    expect(existsSync(join(second.datasets, envId, 'live', 'pgdata', 'PG_VERSION'))).toBe(true);
    await waitFor(async () => !existsSync(join(second.dir, 'transfers', `tr_${moved.id.slice(4)}.in`)) || undefined, 10_000, 'the transfer file to go');
    // The snapshots of the versions were on the first host: a rollback to one is refused with the reason.
    const rollback = await h.api.post(`/v1/envs/${envId}/rollback`, { version: 1 });
    expect(rollback.status).toBe(409);
    expect(rollback.body.error.message).toMatch(/snapshot was pruned/);
    // The event log says where it went.
    const events = (await h.api.get(`/v1/events?subject=env:${envId}&limit=1000`)).body.items as { type: string; data: unknown }[];
    expect(events.filter((e) => e.type === 'env.moved').map((e) => e.data)).toEqual([{ deployment: moved.id, from: h.hostId, to: second.id }]);

    // Refused before anything is written: the host it is on, a host that does not exist, a bad body.
    const deploymentsBefore = (await h.api.get(`/v1/deployments?env=${envId}`)).body.items.length;
    const same = await h.api.post(`/v1/envs/${envId}/move`, { to: 'second' });
    expect(same.status).toBe(409);
    expect(same.body.error.message).toMatch(/already runs on host second/);
    expect((await h.api.post(`/v1/envs/${envId}/move`, { to: 'nowhere' })).status).toBe(404);
    const bad = await h.api.post(`/v1/envs/${envId}/move`, { to: 'test-host', extra: 1 });
    expect(bad.status).toBe(400);
    expect((await h.api.get(`/v1/deployments?env=${envId}`)).body.items.length).toBe(deploymentsBefore);

    // A host that cannot run it (process services disabled): the move fails at `start`, the env
    // never left — it still serves every row on the second host — and the third keeps nothing.
    const third = await addHost('third', 'process_runtime: disabled\n');
    // Drained, it takes nothing: refused before anything is written.
    expect((await h.api.post(`/v1/hosts/${third.id}/drain`, {})).status).toBe(200);
    const drained = await h.api.post(`/v1/envs/${envId}/move`, { to: third.id });
    expect(drained.status).toBe(409);
    expect(drained.body.error.message).toMatch(/host third \(host_\w+\) is drained: it takes no env/);
    expect((await h.api.req('DELETE', `/v1/hosts/${third.id}/drain`)).status).toBe(200);
    expect((await h.api.get(`/v1/deployments?env=${envId}`)).body.items.length).toBe(deploymentsBefore);
    const failing = await h.api.post(`/v1/envs/${envId}/move`, { to: third.id });
    expect(failing.status, JSON.stringify(failing.body)).toBe(202);
    const failed = await h.api.finished(failing.body.deployment.id, 120_000);
    expect(failed.status).toBe('failed');
    expect(failed.phases.map((p) => [p.name, p.status])).toEqual([
      ['place', 'ok'], ['snapshot', 'ok'], ['transfer', 'ok'], ['start', 'failed'], ['health', 'skipped'], ['switch', 'skipped'], ['retire', 'skipped'], ['verdict', 'ok'],
    ]);
    expect(failed.error).toMatch(/process services are disabled on this host/);
    const verdict = failed.phases.find((p) => p.name === 'verdict')!.evidence as Record<string, any>;
    expect(verdict.runs_on).toBe(second.id);
    expect(verdict.undone.snapshot.removed).toEqual([`move-${failed.id}`]);
    // What the move unpacked on the third host is destroyed: its dataset and the move's snapshot.
    expect(verdict.undone.target).toMatchObject({ datasets: 1, snapshots: 1 });
    expect((await envOf(envId)).host).toBe(second.id);
    expect(await dbPort(envId)).toBe(newPort);
    expect(await psql(newPort, 'select count(*) from t')).toBe('5001');
    expect(existsSync(join(third.datasets, envId))).toBe(false);
    expect(agentServicePids(third.dir)).toEqual([]);
  });
});
