/**
 * Environments with their data, end to end, on both dataset drivers: a real loop-mounted btrfs
 * (made here; a missing mkfs.btrfs or a failed mount fails the run) and the copy driver. Real
 * control plane, real agent process, real service processes writing to their datasets.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env, Version } from '../src/contracts/domain.js';
import { canBind } from '../src/agent/ports.js';
import { readProcStat } from '../src/agent/runtimes/process/proc-stat.js';
import { waitFor } from './helpers/api.js';
import { mountBtrfs, subvolumes, type BtrfsMount } from './helpers/btrfs.js';
import { agentServicePids, startHarness, type Harness } from './helpers/harness.js';
import { freshDataDir } from './helpers/stores.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

/** The test app with a `data` dataset; GET/POST /data read and append `$DENV_VOLUME_DATA/rows`. */
const dataApp = (version: string) => ({
  services: {
    web: {
      command: ['node', APP],
      environment: { VERSION: version, DATA_FILE: 'rows' },
      volumes: ['data:/data'],
      'x-denv': { health: { path: '/healthz', timeout: '5s' } },
    },
  },
  volumes: { data: {} },
});

/**
 * A service writing continuously: numbered files `seq/<n>` in its dataset, and after each one
 * `head` = n (replaced atomically by rename). At any one instant the files are exactly 0..M and head is M or M-1 (stopped
 * between the two writes); a copy taken while it runs sees files created after `head` was read.
 */
const WRITER = `
const fs = require('fs'), path = require('path'), http = require('http');
const dir = process.env.DENV_VOLUME_DATA;
fs.mkdirSync(path.join(dir, 'seq'), { recursive: true });
let n = 0;
setInterval(() => {
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(path.join(dir, 'seq', String(n)), String(n));
    fs.writeFileSync(path.join(dir, 'head.tmp'), String(n));
    fs.renameSync(path.join(dir, 'head.tmp'), path.join(dir, 'head'));
    n++;
  }
}, 2);
http.createServer((req, res) => res.end('writing ' + n)).listen(Number(process.env.PORT), '127.0.0.1');
`;
const writerApp = {
  services: { writer: { command: ['node', '-e', WRITER], volumes: ['data:/data'], 'x-denv': { health: { path: '/', timeout: '5s' } } } },
  volumes: { data: {} },
};

const SEED_EVIDENCE: Record<string, Record<string, string[]>> = {
  snapshot: { snapshot: ['snapshot', 'datasets', 'frozen_for', 'consistent'], health: ['answered'], verdict: ['version', 'snapshot', 'took_ms'] },
  fork: { place: ['host', 'reason'], clone: ['forked_in_ms', 'from'], health: ['endpoints'], verdict: ['env', 'took_ms'] },
  rollback: { restore: ['snapshot'], health: ['restored'], verdict: ['version'] },
};

function expectSeedEvidence(dep: Deployment): void {
  for (const [phase, keys] of Object.entries(SEED_EVIDENCE[dep.kind] ?? {})) {
    const evidence = dep.phases.find((p) => p.name === phase)!.evidence;
    for (const key of keys) expect(evidence, `${dep.kind}.${phase}.${key}`).toHaveProperty(key);
  }
}

async function http(url: string, body?: string): Promise<string> {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', body });
  return res.text();
}

describe.each(['btrfs', 'copy'] as const)('env data on the %s driver', (driver) => {
  let h: Harness;
  let fs: BtrfsMount | null = null;
  let datasets: string;

  beforeAll(async () => {
    if (driver === 'btrfs') {
      fs = await mountBtrfs();
      datasets = join(fs.dir, 'datasets');
    } else {
      datasets = join(freshDataDir('denv-copy-datasets-'), 'datasets');
    }
    h = await startHarness({ datasets });
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
    expectSeedEvidence(dep);
    return dep;
  }
  const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;
  const live = (env: string) => join(datasets, env, 'live', 'data');

  it('reports its dataset driver in the host facts', async () => {
    const host = (await h.api.get('/v1/hosts')).body.items.find((x: { id: string }) => x.id === h.hostId);
    expect(host.facts.dataset_driver).toBe(driver);
  });

  it('forks see the data as of the snapshot, writes never cross, rollback restores, destroy leaves nothing', async () => {
    const deploy = await run('/v1/projects/app/deploy', { compose: dataApp('v1'), env: 'data' });
    const parentId = deploy.env;
    const parentUrl = (await envOf(parentId)).endpoints[0]!.url;
    await http(`${parentUrl}/data`, 'a;');

    const snap = await run(`/v1/envs/${parentId}/snapshot`);
    const snapVersion = snap.phases.at(-1)!.evidence!.version as string;
    expect(snap.phases[0]!.evidence).toMatchObject({ snapshot: snapVersion, datasets: ['data'], consistent: true });
    expect(snap.phases[1]!.evidence).toMatchObject({ answered: true });
    expect((await envOf(parentId)).current_version).toBe(snapVersion);
    await http(`${parentUrl}/data`, 'b;');

    const fork = await run(`/v1/envs/${parentId}/fork`, { name: 'data-fork' });
    expect(fork.phases[0]!.evidence).toEqual({ host: h.hostId, reason: 'same host as source snapshot' });
    expect(fork.phases[1]!.evidence).toMatchObject({ from: snapVersion });
    const forkEnv = await envOf(fork.env);
    expect(forkEnv).toMatchObject({ name: 'data-fork', stage: 'fork', status: 'running', parent_version: snapVersion, current_version: snapVersion, host: h.hostId });
    const forkUrl = forkEnv.endpoints[0]!.url;
    expect(forkUrl).not.toBe(parentUrl);
    expect(await http(`${forkUrl}/data`)).toBe('a;');
    await http(`${forkUrl}/data`, 'f;');
    await http(`${parentUrl}/data`, 'c;');
    expect(await http(`${forkUrl}/data`)).toBe('a;f;');
    expect(await http(`${parentUrl}/data`)).toBe('a;b;c;');
    if (driver === 'btrfs') {
      // Separate subvolumes: the fork is a writable snapshot, not a shared directory.
      expect(statSync(live(fork.env)).ino).toBe(256);
      expect(statSync(live(parentId)).ino).toBe(256);
    }

    const rollback = await run(`/v1/envs/${parentId}/rollback`, { version: (await h.api.get(`/v1/envs/${parentId}/versions`)).body.items.find((v: Version) => v.id === snapVersion).number });
    expect(rollback.phases.map((p) => p.evidence)).toMatchObject([{ snapshot: snapVersion }, { restored: snapVersion }, { version: snapVersion }]);
    const restored = await envOf(parentId);
    expect(restored).toMatchObject({ status: 'running', current_version: snapVersion });
    expect(await http(`${restored.endpoints[0]!.url}/data`)).toBe('a;');
    expect(await http(`${forkUrl}/data`)).toBe('a;f;');

    // Destroy both: no process, port, dataset, snapshot (or subvolume) of either is left.
    const pids = agentServicePids(h.agentDir);
    const ports = [restored.endpoints[0]!.url, forkUrl].map((u) => Number(new URL(u).port));
    for (const env of [fork.env, parentId]) {
      const destroy = await run(`/v1/envs/${env}`, undefined, 'DELETE');
      expect(destroy.phases[0]).toMatchObject({ name: 'teardown', status: 'ok' });
      expect((await envOf(env)).status).toBe('torn_down');
    }
    for (const pid of pids) expect(await readProcStat(pid), `pid ${pid}`).toBeNull();
    for (const port of ports) expect(await canBind(port), `port ${port}`).toBe(true);
    const portTable = JSON.parse(readFileSync(join(h.agentDir, 'ports.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(portTable).filter((o) => o.startsWith(`${parentId}/`) || o.startsWith(`${fork.env}/`))).toEqual([]);
    expect(readdirSync(datasets)).toEqual([]);
    for (const dir of ['envs', 'logs']) expect(readdirSync(join(h.agentDir, dir)).filter((e) => e === parentId || e === fork.env)).toEqual([]);
    if (fs) expect(await subvolumes(fs.dir)).toEqual([]);
  });

  it('snapshots a service that writes continuously as a file set consistent at one instant', async () => {
    const deploy = await run('/v1/projects/app/deploy', { compose: writerApp, env: 'writer' });
    await waitFor(() => {
      try {
        return Number(readFileSync(join(live(deploy.env), 'head'), 'utf8')) > 200;
      } catch {
        return false;
      }
    }, 20_000, 'the writer to write');
    for (let round = 0; round < 2; round++) {
      const snap = await run(`/v1/envs/${deploy.env}/snapshot`);
      const evidence = snap.phases[0]!.evidence!;
      expect(evidence.consistent).toBe(true);
      // The writer was paused for the copy: a window longer than nothing, within the phase's own time.
      const phase = snap.phases[0]!;
      expect(evidence.frozen_for).toBeGreaterThan(0);
      expect(evidence.frozen_for).toBeLessThanOrEqual(Date.parse(phase.finished_at!) - Date.parse(phase.started_at!));
      const dir = join(datasets, deploy.env, 'snapshots', evidence.snapshot as string, 'data');
      const seq = readdirSync(join(dir, 'seq')).map(Number).sort((a, b) => a - b);
      const max = seq.at(-1)!;
      expect(seq, 'files 0..max, none missing').toEqual(Array.from({ length: max + 1 }, (_, i) => i));
      const head = Number(readFileSync(join(dir, 'head'), 'utf8'));
      expect([max - 1, max], `head ${head} vs files up to ${max}`).toContain(head);
    }
    // The writer resumed after each snapshot and keeps writing.
    const before = Number(readFileSync(join(live(deploy.env), 'head'), 'utf8'));
    await waitFor(() => Number(readFileSync(join(live(deploy.env), 'head'), 'utf8')) > before, 10_000, 'the writer to resume');
    await run(`/v1/envs/${deploy.env}`, undefined, 'DELETE');
  });
});
