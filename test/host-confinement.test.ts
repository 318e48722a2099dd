/**
 * Least privilege on hosts (issue 10, item 1; docs/security.md "On hosts"), against a real
 * control plane and a real agent running as root on the same machine, the way the review found
 * it: a service deployed with a team token must not be root, must not read the control plane's
 * admin token, the agent's credential or state, or another env's data, and neither may its
 * healthcheck; loader variables, a working_dir outside the env, and `user: root` are refused.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, Env } from '../src/contracts/domain.js';
import { startHarness, type Harness } from './helpers/harness.js';

const APP = fileURLToPath(new URL('./fixtures/app.js', import.meta.url));

/** Reads each path of PROBE (JSON list) and answers {uid, results: {path: "read" | error code}} on GET /. */
const PROBER = `
const fs = require('fs'), http = require('http');
const paths = JSON.parse(process.env.PROBE);
http.createServer((req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  const results = {};
  for (const p of paths) { try { fs.readFileSync(p); results[p] = 'read'; } catch (e) { results[p] = e.code; } }
  let signal = 'sent';
  try { process.kill(Number(process.env.VICTIM_PID), 0); } catch (e) { signal = e.code; }
  res.end(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), home: process.env.HOME, results, signal }));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

describe('process services on a shared host', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    expect((await h.api.post('/v1/projects', { name: 'conf' })).status).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function deploy(env: string, compose: unknown): Promise<Deployment> {
    const res = await h.api.post('/v1/projects/conf/deploy', { compose, env });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return h.api.finished(res.body.deployment.id);
  }
  const envOf = async (id: string): Promise<Env> => (await h.api.get(`/v1/envs/${id}`)).body;

  it('runs each env as a user of its own that cannot read the control plane, the agent or another env', async () => {
    // The victim: an env with a secret in its environment and a file in its dataset.
    const victim = await deploy('victim', {
      services: { web: { command: ['node', APP], environment: { API_KEY: 'victim-secret', DATA_FILE: 'rows' }, volumes: ['data:/data'], 'x-denv': { health: { path: '/healthz' } } } },
      volumes: { data: {} },
    });
    expect(victim.status, victim.error ?? '').toBe('succeeded');
    const victimUrl = (await envOf(victim.env)).endpoints[0]!.url;
    await fetch(`${victimUrl}/data`, { method: 'POST', body: 'victim data' });
    const victimPid = Number((await (await fetch(victimUrl)).text()).split(' ')[1]);

    const agentEnvState = join(h.agentDir, 'envs', victim.env, 'state.json');
    const targets = [
      join(h.dataDir, 'cp', 'admin-token'),
      join(h.agentDir, 'credential.json'),
      agentEnvState,
      join(`${h.agentDir}-workloads`, 'datasets', victim.env, 'live', 'data', 'rows'),
      `/proc/${victimPid}/environ`,
    ];
    const prober = await deploy('prober', {
      services: {
        probe: {
          command: ['node', '-e', PROBER],
          environment: { PROBE: JSON.stringify(targets), VICTIM_PID: String(victimPid) },
          // The healthcheck runs as the service's user too: as root it would fail.
          healthcheck: { test: ['CMD', 'node', '-e', 'process.exit(process.getuid() === 0 ? 1 : 0)'], interval: '200ms' },
        },
      },
    });
    expect(prober.status, prober.error ?? '').toBe('succeeded');
    const report = JSON.parse(await (await fetch((await envOf(prober.env)).endpoints[0]!.url)).text());
    expect(report.uid).toBeGreaterThanOrEqual(61184);
    expect(report.uid).not.toBe(0);
    expect(report.home).toBe(join(`${h.agentDir}-workloads`, prober.env, 'work', 'probe'));
    for (const t of targets) expect(report.results[t], t).toMatch(/^(EACCES|EPERM)$/);
    expect(report.signal).toBe('EPERM');
    // The agent's state is its own; what services reach is traversable, not listable.
    expect(statSync(h.agentDir).mode & 0o777).toBe(0o700);
    expect(statSync(`${h.agentDir}-workloads`).mode & 0o777).toBe(0o711);
    expect(statSync(join(`${h.agentDir}-workloads`, prober.env, 'work', 'probe')).uid).toBe(report.uid);
  });

  it('refuses loader variables, a working_dir outside the env and root', async () => {
    const ld = await h.api.post('/v1/projects/conf/deploy', { env: 'ld', compose: { services: { web: { command: ['node', APP], environment: { LD_PRELOAD: '/tmp/evil.so' } } } } });
    expect(ld.status).toBe(400);
    expect(ld.body.error.message).toMatch(/services\.web\.environment\.LD_PRELOAD: LD_PRELOAD is refused/);

    const root = await deploy('rootdir', { services: { web: { command: ['node', APP], working_dir: '/' } } });
    expect(root.status).toBe('failed');
    expect(root.error).toMatch(/working_dir \/ is outside this env's own directory/);

    const asRoot = await deploy('asroot', { services: { web: { command: ['node', APP], user: 'root' } } });
    expect(asRoot.status).toBe('failed');
    expect(asRoot.error).toMatch(/user "root" is root, which this host does not allow \(agent config run_as_root\)/);
  });
});
