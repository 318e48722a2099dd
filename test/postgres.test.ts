/**
 * Real software nobody here wrote: PostgreSQL 15 from Debian's packages (.ci/run installs it) as a
 * process service with `user: postgres`, its data in a dataset, a `pg_isready` healthcheck and no
 * wrapper script — on both dataset drivers (a real loop-mounted btrfs, and copy). Deploy; insert
 * rows; redeploy with a changed setting (stop-first: the old postmaster stops before the new one
 * starts on the same data, and the rows are still there); redeploy with a setting PostgreSQL
 * refuses (its pipeline stops the new postmaster, the deploy's rollback starts the old one on its
 * port); snapshot; fork on the same host (the
 * fork starts although its data holds the source's postmaster.pid, has the rows, and writes do
 * not cross); rollback restores the snapshot's rows.
 *
 * The Compose file is examples/postgres/compose.yaml, loaded as the CLI loads it: a one-shot
 * `init` service runs initdb only on an empty data dir (find … -empty -exec, an argv), `db`
 * waits for it with `service_completed_successfully`, and finds its own port and data dir
 * through `${DENV_…}`; `${PG_WORK_MEM:-4MB}` comes from the environment it is loaded in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Version } from '../src/contracts/domain.js';
import { run } from '../src/lib/exec.js';
import { loadComposeFile } from '../src/cli/load-compose-file.js';
import { mountBtrfs, type BtrfsMount } from './helpers/btrfs.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const EXAMPLE = fileURLToPath(new URL('../examples/postgres/compose.yaml', import.meta.url));

/** The example loaded as `denv deploy -f` loads it, with `PG_WORK_MEM` from "the user's shell" (fsync off: a test). */
const compose = async (workMem: string) => (await loadComposeFile(EXAMPLE, { env: { PG_WORK_MEM: workMem, PG_FSYNC: 'off' } })).model;

async function psql(port: number, sql: string): Promise<string> {
  const r = await run(['psql', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { timeoutMs: 20_000 });
  if (r.exitCode !== 0) throw new Error(`psql: ${r.stderr}`);
  return r.stdout.trim();
}

describe.each(['btrfs', 'copy'] as const)('PostgreSQL 15 from Debian on the %s driver', (driver) => {
  let h: Harness;
  let fs: BtrfsMount | null = null;

  beforeAll(async () => {
    if (!existsSync(`${PG_BIN}/postgres`)) throw new Error(`${PG_BIN}/postgres is missing: .ci/run installs Debian's postgresql package`);
    const datasets = driver === 'btrfs' ? join((fs = await mountBtrfs()).dir, 'datasets') : join(freshDataDir('denv-pg-datasets-'), 'datasets');
    h = await startHarness({ datasets });
    expect((await h.api.post('/v1/projects', { name: 'pg' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    await fs?.unmount();
  });

  async function op(path: string, body?: unknown): Promise<Deployment> {
    const res = await h.api.post(path, body ?? {});
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id, 120_000);
    expect(dep.status, `${dep.kind}: ${dep.error}`).toBe('succeeded');
    return dep;
  }
  const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
  const dbPort = async (id: string) => Number(new URL((await envOf(id)).endpoints.find((e) => e.service === 'db')!.url).port);

  it('deploys, updates stop-first with its rows, snapshots, forks on the same host and rolls back', async () => {
    const first = await op('/v1/projects/pg/deploy', { compose: await compose('4MB'), env: 'production' });
    const envId = first.env;
    let port = await dbPort(envId);
    const pgUid = (await run(['id', '-u', 'postgres'])).stdout.trim();
    await psql(port, 'create table t (n int); insert into t values (1), (2)');
    expect(await psql(port, 'show work_mem')).toBe('4MB');
    expect(await psql(port, 'select count(*) from t')).toBe('2');
    // The postmaster runs as postgres, as PID 1 of a PID namespace of its own (its host pid is
    // the only child of the `unshare` the agent records).
    const status = (await h.api.get(`/v1/envs/${envId}/status?refresh=true`)).body;
    const recorded = status.live_status.workloads.find((w: { service: string }) => w.service === 'db').pid as number;
    // The one-shot init ran to success: it is done, not down (nothing of it is desired), so it
    // never makes the env degraded.
    expect(status.live_status.workloads.find((w: { service: string }) => w.service === 'init')).toMatchObject({ desired: 0, ready: 0, state: 'exited', detail: 'completed (exit code 0)' });
    const postmaster = Number(readFileSync(`/proc/${recorded}/task/${recorded}/children`, 'utf8').trim().split(/\s+/)[0]);
    const procStatus = readFileSync(`/proc/${postmaster}/status`, 'utf8');
    expect(/^Uid:\s+(\d+)/m.exec(procStatus)![1]).toBe(pgUid);
    expect(/^NSpid:\s+\d+\s+(\d+)$/m.exec(procStatus)![1]).toBe('1');

    // A changed setting: stop-first, same data, the rows are still there, and the downtime is recorded.
    const second = await op('/v1/projects/pg/deploy', { compose: await compose('8MB'), env: 'production' });
    const prepare = second.phases.find((p) => p.name === 'prepare')!.evidence as { updates?: Record<string, { order: string; down_ms: number }> };
    expect(prepare.updates?.db?.order).toBe('stop-first');
    expect(prepare.updates!.db!.down_ms).toBeGreaterThan(0);
    // The new postmaster took over the old one's port: clients keep their address.
    expect(await dbPort(envId)).toBe(port);
    expect(await psql(port, 'show work_mem')).toBe('8MB');
    expect(await psql(port, 'select count(*) from t')).toBe('2');

    // A setting PostgreSQL refuses: the new postmaster exits during start. Its pipeline stops it and
    // gives the port back; the old one, stopped for the update, is started again by the deploy's rollback.
    const brokenRes = await h.api.post('/v1/projects/pg/deploy', { compose: await compose('bogus'), env: 'production' });
    const broken = await h.api.finished(brokenRes.body.deployment.id);
    expect(broken.status).toBe('rolled_back');
    const db = (broken.phases.find((p) => p.name === 'prepare')!.evidence!.pipelines as Record<string, { state: string; stages: { name: string; status: string; detail?: string }[] }>).db!;
    expect(db.state).toBe('failure');
    expect(db.stages.find((st) => st.name === 'health')).toMatchObject({ status: 'failed', detail: 'db exited with code 1 during start' });
    expect(db.stages.find((st) => st.name === 'persist')).toMatchObject({ status: 'skipped', detail: "not run: health failed, stopped; its old copy (stopped for a stop-first update) starts again with the deploy's rollback" });
    expect(await dbPort(envId)).toBe(port);
    expect(await psql(port, 'show work_mem')).toBe('8MB');
    expect(await psql(port, 'select count(*) from t')).toBe('2');

    // Snapshot, then write more.
    const snap = await op(`/v1/envs/${envId}/snapshot`);
    const snapVersion = snap.phases.at(-1)!.evidence!.version as string;
    expect(snap.phases[0]!.evidence).toMatchObject({ datasets: ['pgdata'], consistent: true });
    await psql(port, 'insert into t values (3)');

    // Fork on the same host: it starts on a copy holding the source's postmaster.pid.
    const fork = await op(`/v1/envs/${envId}/fork`, { name: 'pg-fork' });
    const forkPort = await dbPort(fork.env);
    expect(forkPort).not.toBe(port);
    expect(await psql(forkPort, 'select count(*) from t')).toBe('2');
    await psql(forkPort, 'insert into t values (100)');
    await psql(port, 'insert into t values (4)');
    expect(await psql(forkPort, 'select string_agg(n::text, \',\' order by n) from t')).toBe('1,2,100');
    expect(await psql(port, 'select string_agg(n::text, \',\' order by n) from t')).toBe('1,2,3,4');

    // Rollback to the snapshot: its rows, nothing written after.
    const versions = (await h.api.get(`/v1/envs/${envId}/versions`)).body.items as Version[];
    await op(`/v1/envs/${envId}/rollback`, { version: versions.find((v) => v.id === snapVersion)!.number });
    port = await dbPort(envId);
    expect(await psql(port, 'select string_agg(n::text, \',\' order by n) from t')).toBe('1,2');
    expect(await psql(forkPort, 'select count(*) from t')).toBe('3');
  });
});
