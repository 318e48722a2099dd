/**
 * Snapshot retention end to end (issue 9), on both dataset drivers: a real control plane keeping
 * the current and 1 latest healthy version (`keepSnapshots: 1`), a real agent process, a real
 * service writing to its dataset. Several snapshots and a fork: only the kept snapshots stay on
 * disk, the fork's parent snapshot stays while the fork lives and goes once it is destroyed, the
 * freed bytes are reported, a rollback to a pruned version is refused with 409, and
 * `denv env snapshots --json` lists what is kept, why, and its size.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Version } from '../src/contracts/domain.js';
import type { EnvSnapshotList } from '../src/contracts/snapshots.js';
import { measureTree } from '../src/agent/telemetry/volume-usage.js';
import { waitFor } from './helpers/api.js';
import { mountBtrfs, subvolumes, type BtrfsMount } from './helpers/btrfs.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { spawnDenv } from './helpers/processes.js';
import { freshDataDir } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));
const BULK = 8 * 1024 * 1024;

const dataApp = {
  services: {
    web: {
      command: ['node', APP],
      environment: { VERSION: 'v1', DATA_FILE: 'rows' },
      volumes: ['data:/data'],
      'x-denv': { health: { path: '/healthz', timeout: '5s' } },
    },
  },
  volumes: { data: {} },
};

/** `denv --url <cp> --token <admin> <args>` from dist/; resolves once it has exited. */
function cli(h: Harness, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnDenv(['--url', h.cp.url, '--token', h.cp.adminToken, ...args]);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.proc.stdout!.on('data', (d: Buffer) => out.push(d));
  child.proc.stderr!.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) => {
    child.proc.once('error', reject);
    child.proc.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

describe.each(['copy', 'btrfs'] as const)('snapshot retention on the %s driver', (driver) => {
  let h: Harness;
  let fs: BtrfsMount | null = null;
  let datasets: string;

  beforeAll(async () => {
    if (driver === 'btrfs') {
      fs = await mountBtrfs(1024 ** 3);
      datasets = join(fs.dir, 'datasets');
    } else {
      datasets = join(freshDataDir('denv-retention-'), 'datasets');
    }
    // A generous phase bound: this machine is shared, and a slow deploy is not what is tested here.
    h = await startHarness({ datasets, cp: { keepSnapshots: 1, commandTimeoutMs: 180_000 } });
    expect((await h.api.post('/v1/projects', { name: 'app' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    await fs?.unmount();
  });

  async function run(path: string, body?: unknown, method: 'POST' | 'DELETE' = 'POST'): Promise<Deployment> {
    const res = await h.api.req(method, path, method === 'POST' ? (body ?? {}) : undefined);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const dep = await h.api.finished(res.body.deployment.id);
    expect(dep.status, `${dep.kind}: ${dep.error}`).toBe('succeeded');
    return dep;
  }
  const snapshotsOnDisk = (env: string): string[] => {
    try {
      // Hidden names too: a pruned snapshot is renamed aside first, and is gone only once that is deleted.
      return readdirSync(join(datasets, env, 'snapshots')).sort();
    } catch {
      return [];
    }
  };
  /** Poll the dataset root until the env's snapshots on disk are exactly `expected`. */
  const settlesTo = (env: string, expected: string[], what: string) =>
    waitFor(() => JSON.stringify(snapshotsOnDisk(env)) === JSON.stringify([...expected].sort()), 30_000, `${what}: snapshots on disk ${JSON.stringify(expected)} (now ${JSON.stringify(snapshotsOnDisk(env))})`);
  const versionsOf = async (env: string): Promise<Version[]> => (await h.api.get(`/v1/envs/${env}/versions`)).body.items;
  const prunedEvents = async (env: string) =>
    ((await h.api.get(`/v1/events?subject=env:${env}`)).body.items as { type: string; data: { removed: string[]; freed_bytes: number; kept: Record<string, string[]> } }[]).filter((e) => e.type === 'snapshots.pruned');

  it('keeps the current, the latest healthy and the fork parent snapshots; prunes the rest and refuses rollbacks to them', async () => {
    const deploy = await run('/v1/projects/app/deploy', { compose: dataApp, env: 'keep' });
    const env = deploy.env;
    const v1 = deploy.phases.find((p) => p.name === 'snapshot')!.evidence!.snapshot as string;
    // A bulk of data in the live dataset: every copy of it shows in the sizes.
    writeFileSync(join(datasets, env, 'live', 'data', 'bulk'), randomBytes(BULK));

    const snap = async () => (await run(`/v1/envs/${env}/snapshot`)).phases.at(-1)!.evidence!.version as string;
    const v2 = await snap();
    await settlesTo(env, [v2], 'v1 pruned after the snapshot of v2');
    // The event is appended once the host has answered, which may be just after the disk settled.
    const [first] = await waitFor(async () => ((await prunedEvents(env)).length >= 1 ? prunedEvents(env) : undefined), 10_000, 'the first snapshots.pruned event');
    expect(first!.data.removed).toEqual([v1]);

    const fork = await run(`/v1/envs/${env}/fork`, { name: 'keep-fork' });
    const v3 = await snap();
    const v4 = await snap();
    // v3 goes when v4 is taken; v2 stays: the fork was made from it.
    await settlesTo(env, [v2, v4], 'v3 pruned, v2 kept for the fork');
    const usedWithFork = (await measureTree(datasets, 1_000_000)).bytes;

    // Rollbacks to pruned versions are refused before anything runs, naming the reason.
    for (const target of [1, v3]) {
      const res = await h.api.post(`/v1/envs/${env}/rollback`, { version: target });
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.message).toMatch(/its snapshot was pruned/);
    }
    const versions = await versionsOf(env);
    expect(versions.filter((v) => v.snapshot_pruned_at).map((v) => v.id).sort()).toEqual([v1, v3].sort());

    // The CLI lists what is kept and why, with the bytes each holds on the host.
    const listed = await cli(h, ['env', 'snapshots', env, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as EnvSnapshotList;
    expect(list).toMatchObject({ keep_recent: 1, error: null, next: null });
    expect(list.items.map((s) => [s.version, s.kept, s.reasons])).toEqual([
      [v4, true, ['current', 'recent healthy (1 of 1)']],
      [v2, true, [`needed by fork keep-fork (${fork.env})`]],
    ]);
    for (const s of list.items) {
      expect(s.on_host).toBe(true);
      expect(s.bytes).toBeGreaterThanOrEqual(BULK);
      expect(s.datasets).toEqual([{ name: 'data', bytes: s.bytes, truncated: false }]);
    }
    expect(list.total_bytes).toBe(list.items.reduce((n, s) => n + s.bytes!, 0));
    const text = await cli(h, ['env', 'snapshots', env]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/#4 +\S+ +\S+ +kept: current, recent healthy \(1 of 1\) +8\.0 MiB/);
    expect(text.stdout).toMatch(/#2 +\S+ +\S+ +kept: needed by fork keep-fork/);

    // Once the fork is destroyed, nothing needs v2 any more.
    await run(`/v1/envs/${fork.env}`, undefined, 'DELETE');
    await settlesTo(env, [v4], 'v2 pruned once the fork is gone');
    const usedAfter = (await measureTree(datasets, 1_000_000)).bytes;
    // The event is recorded once the host has answered (just after the deletion it reports).
    const events = await waitFor(async () => ((await prunedEvents(env)).length === 3 ? prunedEvents(env) : undefined), 10_000, 'the third snapshots.pruned event');
    expect(events.map((e) => e.data.removed)).toEqual([[v1], [v3], [v2]]);
    for (const e of events) expect(e.data.freed_bytes).toBeGreaterThanOrEqual(e.data.removed.includes(v1) ? 0 : BULK);
    expect(events.at(-1)!.data.kept).toEqual({ [v4]: ['current', 'recent healthy (1 of 1)'] });
    const freed = events.reduce((n, e) => n + e.data.freed_bytes, 0);
    // Figures for the record: what the dataset root holds, and what retention freed.
    console.log(`[${driver}] dataset root: ${usedWithFork} bytes with the fork (live ×2 + 2 snapshots), ${usedAfter} after (live + 1 snapshot); freed ${freed} bytes; without retention ${usedAfter + freed} (file sizes; btrfs shares blocks)`);
    expect((await h.api.post(`/v1/envs/${env}/rollback`, { version: 2 })).status).toBe(409);

    await run(`/v1/envs/${env}`, undefined, 'DELETE');
    expect(readdirSync(datasets)).toEqual([]);
    if (fs) expect(await subvolumes(fs.dir)).toEqual([]);
  }, 180_000);
});
