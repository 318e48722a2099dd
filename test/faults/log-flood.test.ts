/**
 * Fault: a service floods its log into a small disk (issue 11, item 4). The agent's data dir —
 * where service logs, env state and command records live — is a 20 MiB tmpfs, the agent rotates
 * logs past 1 MiB (agent.yaml `log_max_bytes`), and the service prints about 35 MB. The cap
 * holds: the tmpfs never fills, the flooding process keeps running (a full disk would have made
 * its writes fail), and the agent keeps working — the next deploy succeeds within 60 s and only
 * its version runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { appCompose, appliedTwice, runningServices, TERMINAL_WITHIN_MS, versionsRunning } from '../helpers/faults.js';
import { FAST_TIMINGS, killServiceProcesses } from '../helpers/harness.js';
import { startAgentProcess, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const TMPFS_BYTES = 20 * 1024 * 1024;
const LOG_MAX_BYTES = 1024 * 1024;

describe('a log flood into a small tmpfs', () => {
  const dir = freshDataDir('denv-fault-flood-');
  const agentDir = join(dir, 'agent');
  const run = `flood-${process.pid}-${Date.now()}`;
  let mounted = false;
  let cp: ControlPlane;
  let api: Api;
  let agent: Child;

  const used = () => {
    const s = statfsSync(agentDir);
    return (s.blocks - s.bfree) * s.bsize;
  };

  beforeAll(async () => {
    mkdirSync(agentDir, { mode: 0o700 });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES},mode=0700`, 'tmpfs', agentDir]);
    mounted = true;
    const config = join(dir, 'agent.yaml');
    writeFileSync(config, `log_max_bytes: ${LOG_MAX_BYTES}\n`);
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', join(dir, 'cp'))), ...FAST_TIMINGS, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    agent = startAgentProcess({ control: cp.url, enrollmentKey: await cp.createEnrollmentKey(), dataDir: agentDir, config });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { status: string }) => h.status === 'connected'), 30_000, 'the agent to connect');
    await api.post('/v1/projects', { name: 'loud' });
  }, 120_000);

  afterAll(async () => {
    await agent?.kill('SIGKILL');
    killServiceProcesses(agentDir);
    await cp?.close();
    if (mounted) execFileSync('umount', ['-l', agentDir]);
  });

  it('keeps the logs under the cap: the disk never fills, the service keeps running, the next deploy succeeds', async () => {
    const deploy = async (version: string) => (await api.post('/v1/projects/loud/deploy', { env: 'main', compose: appCompose({ run, env: 'main', version }) })).body.deployment.id as string;
    const first = await api.finished(await deploy('v1'));
    expect(first.status, first.error ?? '').toBe('succeeded');
    const url = (await api.get(`/v1/envs/${first.env}`)).body.endpoints[0].url as string;
    const [flooder] = runningServices(run);

    // About 35 MB of log lines (`line i of 200000`, ~22 bytes each), more than the whole tmpfs.
    let peak = 0;
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${url}/print?n=200000`, { method: 'POST' });
      expect(await res.text()).toBe('printed');
      peak = Math.max(peak, used());
    }
    expect(peak).toBeLessThan(TMPFS_BYTES * 0.75);
    // The log is rotated at the next poll: live + one rotated file, each about the cap.
    await waitFor(() => used() < 4 * LOG_MAX_BYTES + 2 * 1024 * 1024, 10_000, `the log to be rotated (tmpfs holds ${used()} bytes)`);
    expect(runningServices(run).map((s) => s.pid)).toEqual([flooder!.pid]); // never crashed on a full disk

    const startedAt = Date.now();
    const second = await api.finished(await deploy('v2'), TERMINAL_WITHIN_MS);
    expect(second.status, second.error ?? '').toBe('succeeded');
    expect(Date.now() - startedAt).toBeLessThan(TERMINAL_WITHIN_MS);
    await waitFor(() => versionsRunning(run, 'main').join() === 'v2', 10_000, `only v2 to run (running: ${versionsRunning(run, 'main').join(', ')})`);
    expect(appliedTwice(agentDir)).toEqual([]);
  }, 120_000);
});
