/**
 * Telemetry of an image service (issue 5, "from the container's cgroup for docker"): a signed image
 * deployed through the control plane onto a real engine shows up in live status (runtime docker,
 * its image, container id, ready), its printed lines in the logs, and CPU/memory samples from its
 * cgroup in the metrics. Needs the engine and the registry (`.ci/docker-up`); fails without them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { waitFor } from './helpers/api.js';
import { closeDockerHarness } from './helpers/docker-agent.js';
import { buildHttpdImage, requireDockerAndRegistry, type TestImage } from './helpers/docker-images.js';
import { envelopeOf, payloadOf, testKey, type TestKey } from './helpers/envelopes.js';
import { startHarness, type Harness } from './helpers/harness.js';

/** A CGI script whose stderr is the container's: `/cgi-bin/say?words` prints `said words`. */
const CGI_SAY = '#!/bin/busybox sh\necho "said $QUERY_STRING" >&2\nprintf "Content-Type: text/plain\\r\\n\\r\\nok"\n';
/** A CGI script that spins the CPU for about a second of wall time inside the container, then answers `burnt`. */
const CGI_BURN = '#!/bin/busybox sh\nend=$(( $(/bin/busybox date +%s) + 1 ))\nwhile [ $(/bin/busybox date +%s) -le $end ]; do :; done\nprintf "Content-Type: text/plain\\r\\n\\r\\nburnt"\n';

let h: Harness;
let image: TestImage;
let key: TestKey;
let env = '';
let url = '';
const dir = mkdtempSync(join(tmpdir(), 'denv-docker-tel-'));
const envDir = mkdtempSync('/dev/shm/denv-test-env-');

beforeAll(async () => {
  await requireDockerAndRegistry();
  image = await buildHttpdImage('tel', { 'index.html': 'tel', healthz: 'ok', 'cgi-bin/say': CGI_SAY, 'cgi-bin/burn': CGI_BURN });
  key = testKey();
  writeFileSync(join(dir, 'ci.pub'), key.publicPem);
  writeFileSync(join(dir, 'agent.yaml'), stringify({ trusted_keys: ['ci.pub'], allow: { repositories: ['127.0.0.1:5000/denv-test/'], services: ['web'] }, network: 'host', env_dir: envDir }));
  h = await startHarness({ agentConfig: join(dir, 'agent.yaml'), cp: { liveStatusMs: 300, metricsMs: 400 } });
  await h.api.post('/v1/projects', { name: 'dtel' });
  const res = await h.api.post('/v1/projects/dtel/deploy', {
    env: 'production',
    compose: { services: { web: { image: image.repository, 'x-denv': { health: { path: '/healthz', timeout: '5s' } } } } },
    envelope: envelopeOf(payloadOf({ service: 'web', repository: image.repository, digest: image.digest, host: 'test-host' }), key),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const dep = await h.api.finished(res.body.deployment.id, 90_000);
  expect(dep.status, dep.error ?? '').toBe('succeeded');
  env = dep.env;
  url = (await h.api.get(`/v1/envs/${env}`)).body.endpoints[0].url;
}, 180_000);

afterAll(() => closeDockerHarness(h, dir, envDir));

describe('image service telemetry', () => {
  it('shows the container in live status: runtime docker, its image and container id, ready', async () => {
    const s = await waitFor(async () => {
      const { body } = await h.api.get(`/v1/envs/${env}/status`);
      return body.live_status?.workloads.find((w: { runtime: string; ready: number }) => w.runtime === 'docker' && w.ready === 1) ? body : undefined;
    }, 20_000, 'a ready docker workload in live status');
    const w = s.live_status.workloads.find((x: { runtime: string }) => x.runtime === 'docker');
    expect(w).toMatchObject({ service: 'web', runtime: 'docker', image: image.ref, desired: 1, ready: 1, state: 'running', restarts: 0, last_exit: null });
    expect(w.container_id).toMatch(/^[0-9a-f]{64}$/);
    expect(w.pid).toBeGreaterThan(0);
  });

  it('returns the lines the container printed', async () => {
    expect(await (await fetch(`${url}/cgi-bin/say?hello-from-the-container`)).text()).toBe('ok');
    const logs = await waitFor(async () => {
      const { body } = await h.api.get(`/v1/envs/${env}/logs`);
      return body.items.some((l: { text: string }) => l.text === 'said hello-from-the-container') ? body : undefined;
    }, 20_000, 'the printed line in the logs');
    // Printed once, read once (a line read twice from the container's log would show twice).
    const said = logs.items.filter((l: { text: string }) => l.text === 'said hello-from-the-container');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ service: 'web' });
  });

  it('samples CPU and memory from the container cgroup', async () => {
    const metrics = await waitFor(async () => {
      const { body } = await h.api.get(`/v1/envs/${env}/metrics`);
      const pts = body.services?.find((s: { service: string }) => s.service === 'web')?.points ?? [];
      return pts.filter((p: { cpu_pct: number | null; mem_bytes: number | null }) => p.cpu_pct !== null && p.mem_bytes !== null).length >= 2 ? body : undefined;
    }, 30_000, 'CPU and memory samples of the container');
    const point = metrics.services.find((s: { service: string }) => s.service === 'web').points.at(-1);
    expect(point.mem_bytes).toBeGreaterThan(0);
    // While a CGI spins inside the container, its cgroup's CPU shows in a sample.
    const busy = await waitFor(async () => {
      expect(await (await fetch(`${url}/cgi-bin/burn`)).text()).toBe('burnt');
      const { body } = await h.api.get(`/v1/envs/${env}/metrics`);
      return body.services.find((s: { service: string }) => s.service === 'web').points.find((p: { cpu_pct: number | null }) => (p.cpu_pct ?? 0) >= 5);
    }, 30_000, 'a sample of the container spinning');
    expect(busy.cpu_pct).toBeLessThanOrEqual(100 * cpus().length);
    // The uptime probe GETs the health path on the slot's host port.
    const up = await waitFor(async () => {
      const { body } = await h.api.get(`/v1/envs/${env}/uptime`);
      const web = body.services?.find((x: { service: string }) => x.service === 'web');
      return web?.probes >= 2 ? web : undefined;
    }, 20_000, 'uptime probes of the container');
    expect(up).toMatchObject({ service: 'web', uptime_pct: 100, last: { up: true, detail: 'HTTP 200' } });
  });
});
