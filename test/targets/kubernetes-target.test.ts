/**
 * Kubernetes target, end to end: a control plane, a real cluster agent process (`denv agent
 * --kubernetes`) dialing out over WebSocket, and — since no Kubernetes API server can run on this
 * machine — a local server speaking the documented endpoints the agent uses (server-side apply,
 * reads, deletes, pods, logs: test/helpers/kube-api-server.ts), which checks what it is sent
 * (content type, field manager, schemas). Contract-tested, not run against a real cluster.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { startKubeApiServer, type KubeApiServer } from '../helpers/kube-api-server.js';
import { spawnDenv, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const IMAGE_V1 = 'registry.example.test/shop:1.0';
const IMAGE_BAD = 'registry.example.test/shop:broken';

const shopCompose = (image: string) => ({
  services: {
    web: {
      image,
      ports: ['8080'],
      volumes: ['uploads:/srv/uploads'],
      'x-denv': { health: { path: '/healthz', port: 8080 }, edge: { hostnames: ['shop.example.test'] } },
    },
  },
  volumes: { uploads: {} },
  'x-denv': { target: 'kubernetes' },
});

const writes = (k: KubeApiServer) => k.requests.filter((r) => r.method !== 'GET');

describe('kubernetes target: plan, approve, apply, stop, start, teardown', () => {
  let cp: ControlPlane;
  let api: Api;
  let kube: KubeApiServer;
  let agent: Child;
  let kubeconfig: string;
  let agentDir: string;
  let clusterId: string;

  beforeAll(async () => {
    kube = await startKubeApiServer({ certManager: true, ingressClasses: [{ name: 'nginx', default: true }], storageClasses: [{ name: 'standard', default: true }] });
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, liveStatusMs: 500, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    kubeconfig = kube.kubeconfig(path.join(mkdtempSync(path.join(tmpdir(), 'denv-kube-')), 'kubeconfig'));
    agentDir = path.join(dir, 'cluster-agent');
    agent = spawnDenv(['agent', '--kubernetes', '--kubeconfig', kubeconfig, '--control', cp.url, '--data-dir', agentDir, '--name', 'cluster-a'], { DENV_ENROLLMENT_KEY: await cp.createEnrollmentKey() });
    clusterId = await waitFor(async () => (await api.get('/v1/hosts')).body.items.find((h: { name: string; status: string }) => h.name === 'cluster-a' && h.status === 'connected')?.id, 30_000, 'the cluster agent to connect');
    expect((await api.post('/v1/projects', { name: 'shop', approval: 'required' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await agent?.kill();
    await cp?.close();
    await kube?.close();
  });

  const env = async (id: string) => (await api.get(`/v1/envs/${id}`)).body;
  const statusIs = (id: string, s: string) => waitFor(async () => ((await env(id)).status === s ? true : undefined), 60_000, `env ${id} to be ${s}`);
  const deployments = async (id: string) => (await api.get(`/v1/deployments?env=${id}`)).body.items as { id: string; kind: string; status: string; phases: { name: string; status: string; evidence: any }[] }[];

  it('reports the cluster facts and takes no host-target env', async () => {
    const host = (await api.get('/v1/hosts')).body.items.find((h: { id: string }) => h.id === clusterId);
    expect(host.facts).toMatchObject({ runtimes: ['kubernetes'], dataset_driver: 'none', cluster: { version: 'v1.31.2', namespace: kube.namespace, ingress_classes: ['nginx'], default_ingress_class: 'nginx', cert_manager: true, default_storage_class: 'standard' } });
  });

  let envId: string;
  it('plans for the cluster and touches nothing before approval; approved, it applies and runs', async () => {
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose: shopCompose(IMAGE_V1) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    envId = res.body.env.id;
    await statusIs(envId, 'awaiting_approval');
    expect((await env(envId)).target).toBe('kubernetes');
    const [plan] = (await api.get(`/v1/envs/${envId}/plans`)).body.items;
    expect(plan).toMatchObject({ planner: 'kubernetes', status: 'ready' });
    const kinds = (plan.artifact as string).match(/^kind: (\w+)$/gm)!;
    expect(kinds.sort()).toEqual(['kind: Deployment', 'kind: Ingress', 'kind: PersistentVolumeClaim', 'kind: Service']);
    expect(plan.summary).toContain('shop.example.test');
    // Planning read the env's live objects (a GET); nothing was written to the cluster.
    expect(writes(kube)).toEqual([]);

    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    await statusIs(envId, 'running');
    const [dep] = await deployments(envId);
    expect(dep).toMatchObject({ kind: 'deploy', status: 'succeeded' });
    const phase = (n: string) => dep!.phases.find((p) => p.name === n)!;
    expect(dep!.phases.map((p) => [p.name, p.status])).toEqual([
      ['resolve', 'ok'], ['place', 'ok'], ['provision', 'skipped'], ['join', 'skipped'], ['prepare', 'ok'], ['start', 'ok'],
      ['health', 'ok'], ['warm', 'skipped'], ['snapshot', 'skipped'], ['ingress', 'ok'], ['verdict', 'ok'],
    ]);
    expect(phase('place').evidence).toMatchObject({ host: clusterId, cluster: 'cluster-a', namespace: kube.namespace });
    expect(phase('prepare').evidence.applied.map((r: { kind: string }) => r.kind)).toEqual(['PersistentVolumeClaim', 'Service', 'Deployment', 'Ingress']);
    expect(phase('start').evidence.workloads[0]).toMatchObject({ desired: 1, ready: 1, images: [IMAGE_V1] });
    // Every write was a server-side apply by field manager denv, in the agent's namespace.
    const applies = writes(kube);
    expect(applies.length).toBe(4);
    for (const r of applies) {
      expect(r).toMatchObject({ method: 'PATCH', contentType: 'application/apply-patch+yaml', query: { fieldManager: 'denv', force: 'true' } });
      expect(r.path).toContain(`/namespaces/${kube.namespace}/`);
    }
    expect((await env(envId)).endpoints).toEqual([{ service: 'web', url: 'https://shop.example.test' }]);
  });

  it('reports live status from the cluster', async () => {
    await waitFor(async () => {
      const status = (await api.get(`/v1/envs/${envId}/status`)).body;
      const w = status.live_status?.workloads?.find((x: { service: string }) => x.service === 'web');
      // The data operations a cluster cannot run are not offered.
      expect(status.actions).toEqual(['replan', 'stop', 'teardown', 'separate']);
      return w && w.desired === 1 && w.ready === 1 && w.runtime === 'kubernetes' && w.pods?.[0]?.phase === 'Running' ? true : undefined;
    }, 20_000, 'live status from the cluster agent').catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify((await api.get(`/v1/envs/${envId}/status`)).body)}`);
    });
  });

  it('shows the pods\' log lines, each once', async () => {
    kube.setLogs('shop-production-web', ['listening on 8080', 'GET /healthz 200']);
    for (let i = 0; i < 2; i++) {
      const res = await api.get(`/v1/envs/${envId}/logs?lines=50`);
      expect(res.body.error).toBeNull();
      expect(res.body.items.map((l: { text: string }) => l.text.replace(/^\[[^\]]+\] /, ''))).toEqual(['listening on 8080', 'GET /healthz 200']);
    }
  });

  it('a failing upgrade rolls back to the previous manifests', async () => {
    kube.failImage(IMAGE_BAD, 'ImagePullBackOff');
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose: shopCompose(IMAGE_BAD) });
    expect(res.status).toBe(202);
    await statusIs(envId, 'awaiting_approval');
    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    const failed = await waitFor(async () => (await deployments(envId)).find((d) => d.id === res.body.deployment.id && d.status !== 'pending' && d.status !== 'running'), 90_000, 'the upgrade to end');
    expect(failed.status, JSON.stringify(failed.phases.filter((p) => p.status === 'failed' || p.name === 'verdict'))).toBe('rolled_back');
    const start = failed.phases.find((p) => p.name === 'start')!;
    expect(start.status).toBe('failed');
    expect(JSON.stringify(start.evidence)).toContain('ImagePullBackOff');
    const [deployment] = kube.objects('Deployment') as { spec: { template: { spec: { containers: { image: string }[] } } } }[];
    expect(deployment!.spec.template.spec.containers[0]!.image).toBe(IMAGE_V1);
    await statusIs(envId, 'running');
  }, 120_000);

  it('stop scales to zero and keeps the claim; start re-applies the planned replicas', async () => {
    expect((await api.post(`/v1/envs/${envId}/stop`, {})).status).toBe(202);
    await statusIs(envId, 'stopped');
    const deployment = () => kube.objects('Deployment')[0] as { spec: { replicas: number } };
    expect(deployment().spec.replicas).toBe(0);
    expect(kube.objects('PersistentVolumeClaim')).toHaveLength(1);
    expect((await api.post(`/v1/envs/${envId}/start`, {})).status).toBe(202);
    await statusIs(envId, 'running');
    expect(deployment().spec.replicas).toBe(1);
  }, 90_000);

  it('refuses operations that need datasets on a host, writing nothing', async () => {
    const before = (await deployments(envId)).length;
    const versions = (await api.get(`/v1/envs/${envId}/versions`)).body.items;
    for (const [url, body] of [
      [`/v1/envs/${envId}/snapshot`, {}],
      [`/v1/envs/${envId}/verify`, {}],
      [`/v1/envs/${envId}/fork`, { name: 'copy' }],
      [`/v1/envs/${envId}/rollback`, { version: versions[versions.length - 1].id }],
      [`/v1/envs/${envId}/move`, { to: 'cluster-a' }],
    ] as const) {
      const res = await api.post(url, body);
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.error.message, url).toMatch(/Kubernetes|cluster/);
    }
    expect((await deployments(envId)).length).toBe(before);
  });

  it('a replan evolves the live objects: replicas and annotations changed in the cluster are kept', async () => {
    const [live] = kube.objects('Deployment') as { metadata: { name: string } }[];
    kube.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: live!.metadata.name, annotations: { 'team.example/owner': 'ops' } }, spec: { replicas: 3 } }, 'kubectl');
    expect((await api.post(`/v1/envs/${envId}/replan`, { guidance: 'keep what ops changed' })).status).toBe(202);
    await statusIs(envId, 'awaiting_approval');
    const [plan] = (await api.get(`/v1/envs/${envId}/plans`)).body.items;
    const docs = (plan.artifact as string).split(/^---$/m).map((d) => parse(d)).filter(Boolean);
    const deployment = docs.find((d: { kind: string }) => d.kind === 'Deployment');
    expect(deployment.metadata.name).toBe(live!.metadata.name);
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.metadata.annotations).toMatchObject({ 'team.example/owner': 'ops' });
    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    await statusIs(envId, 'running');
  }, 90_000);

  it('an upgrade that drops the hostnames deletes the Ingress it no longer plans, and keeps the claim', async () => {
    const withoutEdge = shopCompose(IMAGE_V1);
    delete (withoutEdge.services.web['x-denv'] as { edge?: unknown }).edge;
    expect((await api.post('/v1/projects/shop/deploy', { env: 'production', compose: withoutEdge })).status).toBe(202);
    await statusIs(envId, 'awaiting_approval');
    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    await statusIs(envId, 'running');
    const [dep] = await deployments(envId);
    expect(dep!.phases.find((p) => p.name === 'verdict')!.evidence.pruned).toEqual([{ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'shop-production-web' }]);
    expect(kube.objects('Ingress')).toEqual([]);
    expect(kube.objects('PersistentVolumeClaim')).toHaveLength(1);
    expect((await env(envId)).endpoints).toEqual([]);
    // The prune did not make the agent forget the env: its live status keeps coming.
    const after = Date.now();
    await waitFor(async () => {
      const live = (await api.get(`/v1/envs/${envId}/status`)).body.live_status;
      return live && Date.parse(live.at) > after && live.workloads[0]?.ready === 1 ? true : undefined;
    }, 20_000, 'live status after the prune');
  }, 60_000);

  it('teardown deletes exactly the plan\'s objects; one created beside them survives', async () => {
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-production-web-extra', labels: { 'denv.dev/env': 'shop-production' } }, data: { a: '1' } }, 'kubectl');
    const before = kube.requests.length;
    expect((await api.post(`/v1/envs/${envId}/teardown`, {})).status).toBe(202);
    await statusIs(envId, 'torn_down');
    const deletes = kube.requests.slice(before).filter((r) => r.method === 'DELETE').map((r) => r.path.split('/').slice(-2).join('/'));
    // Every object a plan of the env named: the Ingress the upgrade above pruned is absent (no DELETE sent for it).
    expect(deletes.sort()).toEqual(['deployments/shop-production-web', 'persistentvolumeclaims/shop-production-uploads', 'services/shop-production-web'].sort());
    const teardown = (await deployments(envId)).find((d) => d.kind === 'destroy')!.phases.find((p) => p.name === 'teardown')!;
    expect(teardown.evidence.absent).toEqual([{ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'shop-production-web' }]);
    expect(kube.objects('ConfigMap').map((c) => (c as { metadata: { name: string } }).metadata.name)).toEqual(['shop-production-web-extra']);
    expect(kube.objects('Deployment')).toEqual([]);
  }, 60_000);

  it('never changes or deletes an object it does not own: a deploy meeting one fails, and the object is untouched', async () => {
    kube.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'clash-prod-web', labels: { app: 'theirs' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'theirs' } }, template: { metadata: { labels: { app: 'theirs' } }, spec: { containers: [{ name: 'web', image: 'theirs:1' }] } } } }, 'kubectl');
    expect((await api.post('/v1/projects', { name: 'clash' })).status).toBe(201);
    const res = await api.post('/v1/projects/clash/deploy', { env: 'prod', compose: shopCompose(IMAGE_V1) });
    const id = res.body.env.id as string;
    await statusIs(id, 'failed');
    const dep = (await deployments(id)).find((d) => d.kind === 'deploy')!;
    expect(dep.phases.find((p) => p.name === 'prepare')!.evidence.error).toContain('Deployment clash-prod-web belongs to no denv env');
    const theirs = kube.objects('Deployment').find((d) => (d as { metadata: { name: string } }).metadata.name === 'clash-prod-web') as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    expect(theirs.spec.replicas).toBe(2);
    expect(theirs.spec.template.spec.containers[0]!.image).toBe('theirs:1');
    expect(kube.requests.some((r) => r.method !== 'GET' && r.path.endsWith('/clash-prod-web'))).toBe(false);
    // Its teardown deletes none of it.
    expect((await api.post(`/v1/envs/${id}/teardown`, {})).status).toBe(202);
    await statusIs(id, 'torn_down');
    expect(kube.objects('Deployment').some((d) => (d as { metadata: { name: string } }).metadata.name === 'clash-prod-web')).toBe(true);
  }, 60_000);

  it('a failed first deploy deletes what it applied, claim included: deleting its record then leaves nothing in the cluster', async () => {
    const image = 'registry.example.test/shop:never-pulls';
    kube.failImage(image, 'ImagePullBackOff');
    expect((await api.post('/v1/projects', { name: 'broken' })).status).toBe(201);
    const res = await api.post('/v1/projects/broken/deploy', { env: 'prod', compose: shopCompose(image) });
    const id = res.body.env.id as string;
    const finished = await api.finished(res.body.deployment.id, 60_000);
    expect(finished.status).toBe('failed');
    expect(finished.phases.find((p) => p.name === 'prepare')!.status).toBe('ok'); // it did apply
    const verdict = finished.phases.find((p) => p.name === 'verdict')!;
    expect((verdict.evidence as any).reverted).toBe('no previous version');
    const names = ['broken-prod-uploads', 'broken-prod-web'];
    expect((verdict.evidence as any).removed.map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`).sort()).toEqual(['Deployment/broken-prod-web', 'Ingress/broken-prod-web', 'PersistentVolumeClaim/broken-prod-uploads', 'Service/broken-prod-web']);
    const left = () => kube.objects().filter((o) => names.includes((o as { metadata: { name: string } }).metadata.name) && (o as { kind: string }).kind !== 'Pod');
    expect(left()).toEqual([]);
    // A stop now has nothing to scale (it would make the objects again), and the record deletes clean.
    expect((await api.post(`/v1/envs/${id}/stop`, {})).status).toBe(202);
    await statusIs(id, 'stopped');
    const stop = (await deployments(id)).find((d) => d.kind === 'stop')!;
    expect(stop.phases.find((p) => p.name === 'stop')).toMatchObject({ status: 'skipped', evidence: { reason: 'nothing was applied to the cluster' } });
    expect((await api.post(`/v1/envs/${id}/teardown`, {})).status).toBe(202);
    await statusIs(id, 'torn_down');
    expect((await api.req('DELETE', `/v1/envs/${id}/record`)).status).toBe(200);
    expect(left()).toEqual([]);
  }, 90_000);

  it('separate leaves the workload running and the agent acts on the env no more', async () => {
    const p = await api.post('/v1/projects', { name: 'other' });
    expect(p.status).toBe(201);
    const res = await api.post('/v1/projects/other/deploy', { env: 'production', compose: shopCompose(IMAGE_V1) });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    const writesBefore = writes(kube).length;
    expect((await api.post(`/v1/envs/${id}/separate`, {})).status).toBe(202);
    await statusIs(id, 'separated');
    await waitFor(async () => ((await deployments(id)).find((d) => d.kind === 'separate')?.status === 'succeeded' ? true : undefined), 30_000, 'separate to finish');
    expect(writes(kube).length).toBe(writesBefore);
    expect(kube.objects('Deployment').map((d) => (d as { metadata: { name: string } }).metadata.name).filter((n) => n.startsWith('other-'))).toEqual(['other-production-web']);
  }, 90_000);

  it('an agent restarted in another namespace refuses the commands of plans made for the first, touching nothing', async () => {
    expect((await api.post('/v1/projects', { name: 'moved' })).status).toBe(201);
    const res = await api.post('/v1/projects/moved/deploy', { env: 'prod', compose: shopCompose(IMAGE_V1) });
    const id = res.body.env.id as string;
    await statusIs(id, 'running');
    const [plan] = (await api.get(`/v1/envs/${id}/plans`)).body.items;
    expect(plan.summary).toContain(`to namespace ${kube.namespace}`);
    const restart = async (namespace: string[]) => {
      await agent.kill();
      agent = spawnDenv(['agent', '--kubernetes', '--kubeconfig', kubeconfig, '--control', cp.url, '--data-dir', agentDir, '--name', 'cluster-a', ...namespace]);
      await waitFor(async () => ((await api.get('/v1/hosts')).body.items.find((h: { id: string; status: string; facts: { cluster?: { namespace: string } } }) => h.id === clusterId && h.status === 'connected' && h.facts.cluster?.namespace === (namespace[1] ?? kube.namespace)) ? true : undefined), 30_000, 'the cluster agent to reconnect');
    };
    await restart(['--namespace', 'elsewhere']);
    const before = writes(kube).length;
    const refused = `the plan was made for namespace ${kube.namespace}, and this agent works in namespace elsewhere: restart it with --namespace ${kube.namespace}, or re-plan the env for elsewhere`;
    expect((await api.post(`/v1/envs/${id}/stop`, {})).status).toBe(202);
    const stop = await waitFor(async () => (await deployments(id)).find((d) => d.kind === 'stop' && !['pending', 'running'].includes(d.status)), 60_000, 'the stop to end');
    expect(stop.status).toBe('failed');
    expect(stop.phases.find((p) => p.name === 'stop')!.evidence.error).toContain(refused);
    expect((await api.post(`/v1/envs/${id}/teardown`, {})).status).toBe(202);
    const teardown = await waitFor(async () => (await deployments(id)).find((d) => d.kind === 'destroy' && !['pending', 'running'].includes(d.status)), 60_000, 'the teardown to end');
    expect(teardown.status).toBe('failed');
    expect(teardown.phases.find((p) => p.name === 'teardown')!.evidence.error).toContain(refused);
    expect(writes(kube).length).toBe(before);
    expect(kube.objects('Deployment').some((d) => (d as { metadata: { name: string } }).metadata.name === 'moved-prod-web')).toBe(true);
    // Back in the plan's namespace, the teardown goes through.
    await restart([]);
    expect((await api.post(`/v1/envs/${id}/teardown`, {})).status).toBe(202);
    await statusIs(id, 'torn_down');
    expect(kube.objects('Deployment').some((d) => (d as { metadata: { name: string } }).metadata.name === 'moved-prod-web')).toBe(false);
  }, 120_000);
});
