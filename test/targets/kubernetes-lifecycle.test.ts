/**
 * The env lifecycle (seed 002) on the Kubernetes target: the host's table (test/helpers/lifecycle-table.ts),
 * every (status, action) pair reaching the same outcome, with a kubernetes env — a control plane, a
 * real cluster agent process (`denv agent --kubernetes`) and the local Kubernetes API server
 * (test/helpers/kube-api-server.ts) standing in for a cluster.
 *
 * How each status is held or reached, without sleeps (each env runs an image of its own, so holds
 * and failures are per env):
 *   planning                 the project's LLM planner is a local endpoint that answers no one until
 *                            the end of the file: the plan is under way (its request arrived) and stays so
 *   deploying, upgrading     the env's image is held (`holdImage`): its pods run but are not ready, with no
 *                            reason to give up on, so `kube.wait` waits until the gate opens (the release)
 *   stopping, tearing_down   stop / teardown of a deploying env: they wait for the held deploy
 *   degraded                 a running env's image starts failing (CrashLoopBackOff): the agent's live status
 *                            (every 300 ms) shows it not ready and the monitor flips the env
 *   failed                   a deploy whose image cannot be pulled (ImagePullBackOff): the agent gives up
 */
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { EnvStatus } from '../../src/contracts/domain.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { startKubeApiServer, type KubeApiServer } from '../helpers/kube-api-server.js';
import { imageEnvs, imageOfEnv, lifecycleReach } from '../helpers/lifecycle-reach.js';
import { lifecycleApi, lifecycleTable, reachedByActions } from '../helpers/lifecycle-table.js';
import { spawnDenv, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const compose = (image: string) => ({
  services: { web: { image, ports: ['8080'], 'x-denv': { health: { path: '/healthz', port: 8080 } } } },
  'x-denv': { target: 'kubernetes' },
});

/**
 * An OpenAI-compatible endpoint that holds every chat request unanswered until `release()`, then
 * answers 503 (to those held and any later): a project planned through it stays `planning`.
 */
interface HeldLlm {
  readonly url: string;
  /** Resolves once a request planning env `name` has arrived (and is held). */
  holding(name: string): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

async function startHeldLlm(): Promise<HeldLlm> {
  const bodies: string[] = [];
  const held: http.ServerResponse[] = [];
  let released = false;
  const refuse = (res: http.ServerResponse) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'the test is over', type: 'server_error', param: null, code: null } }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      if (released) refuse(res);
      else held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    holding: (name) => waitFor(() => bodies.some((b) => b.includes(name)), 30_000, `the LLM planner to be asked for ${name}`).then(() => {}),
    release() {
      released = true;
      for (const res of held.splice(0)) refuse(res);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('env lifecycle on the kubernetes target: every (status, action) pair', () => {
  let cp: ControlPlane;
  let api: Api;
  let kube: KubeApiServer;
  let llm: HeldLlm;
  let agent: Child;

  beforeAll(async () => {
    kube = await startKubeApiServer();
    llm = await startHeldLlm();
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, liveStatusMs: 300, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    const kubeconfig = kube.kubeconfig(path.join(mkdtempSync(path.join(tmpdir(), 'denv-kube-')), 'kubeconfig'));
    agent = spawnDenv(['agent', '--kubernetes', '--kubeconfig', kubeconfig, '--control', cp.url, '--data-dir', path.join(dir, 'cluster-agent'), '--name', 'cluster-a'], { DENV_ENROLLMENT_KEY: await cp.createEnrollmentKey() });
    await waitFor(async () => (await api.get('/v1/hosts')).body.items.some((h: { name: string; status: string }) => h.name === 'cluster-a' && h.status === 'connected'), 30_000, 'the cluster agent to connect');
    expect((await api.post('/v1/projects', { name: 'auto' })).status).toBe(201);
    expect((await api.post('/v1/projects', { name: 'req', approval: 'required' })).status).toBe(201);
    // Its envs are planned through the held LLM endpoint: they stay `planning`.
    expect((await api.post('/v1/projects', { name: 'held' })).status).toBe(201);
    const planner = { kind: 'llm', url: llm.url, model: 'held-model', key: 'sk-test' };
    expect((await api.req('PATCH', '/v1/projects/held', { planner })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    llm?.release(); // before the control plane closes: it waits for the plans in progress
    await agent?.kill();
    await cp?.close();
    await kube?.close();
    await llm?.close();
  });

  const { env, statusIs } = lifecycleApi(() => api);
  const { next, deploy, planning, reach, openGate } = lifecycleReach({
    api: () => api,
    ...imageEnvs(compose, (image) => kube.holdImage(image)),
  });

  /** A fresh env in `status`. */
  const REACH: Record<EnvStatus, () => Promise<string>> = {
    ...reach,
    // never a part of another's name: `holding` looks for it in the request
    planning: () => planning('held', `hold${next()}x`, llm.holding),
    degraded: async () => {
      const id = await reach.running();
      kube.failImage(imageOfEnv((await env(id)).name), 'CrashLoopBackOff');
      await statusIs(id, 'degraded');
      return id;
    },
    failed: async () => {
      const name = `e${next()}`;
      kube.failImage(imageOfEnv(name), 'ImagePullBackOff');
      const id = await deploy('auto', name);
      await statusIs(id, 'failed', 60_000); // the agent gives up ~10 s after the reason appears
      return id;
    },
    ...reachedByActions(() => api, { running: reach.running, deploying: reach.deploying }),
  };

  // `failed` takes longest: the agent gives up on a failing image ~10 s after its reason appears,
  // once for the row's shared env, then again for the envs of its allowed actions.
  lifecycleTable({ api: () => api, reach: REACH, openGate, outcomeTimeoutMs: 60_000, rowTimeoutMs: 120_000 });
});
