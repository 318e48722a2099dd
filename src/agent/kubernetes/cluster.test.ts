/**
 * The cluster client (@kubernetes/client-node 1.4.0, for real) against the local Kubernetes API
 * server (test/helpers/kube-api-server.ts), which checks what it is sent: server-side apply's
 * content type, field manager and force, the namespace, the objects' schemas.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_ENV, LABEL_MANAGED_BY, LABEL_SERVICE, type KubeObject, type KubeRef } from '../../contracts/kubernetes.js';
import { startKubeApiServer, type KubeApiServer, type KubeApiServerOptions } from '../../../test/helpers/kube-api-server.js';
import { openCluster, type Cluster } from './open-cluster.js';
import { KubeApiError } from './kube-api-error.js';

const dir = mkdtempSync(join(tmpdir(), 'denv-kube-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const servers: KubeApiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

let n = 0;
async function start(o: KubeApiServerOptions = {}): Promise<{ kube: KubeApiServer; cluster: Cluster }> {
  const kube = await startKubeApiServer(o);
  servers.push(kube);
  const cluster = openCluster({ kubeconfig: kube.kubeconfig(join(dir, `config-${++n}`)) });
  return { kube, cluster };
}

const labels = { [LABEL_MANAGED_BY]: 'denv', [LABEL_ENV]: 'shop', [LABEL_SERVICE]: 'web' };
const selector = { [LABEL_ENV]: 'shop', [LABEL_SERVICE]: 'web' };

function deployment(o: { image?: string; replicas?: number; name?: string } = {}): KubeObject {
  const name = o.name ?? 'web';
  const sel = { ...selector, [LABEL_SERVICE]: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { ...labels, [LABEL_SERVICE]: name } },
    spec: {
      ...(o.replicas === undefined ? {} : { replicas: o.replicas }),
      selector: { matchLabels: sel },
      template: { metadata: { labels: { ...labels, [LABEL_SERVICE]: name } }, spec: { containers: [{ name, image: o.image ?? 'registry.example.com/shop/web:1', ports: [{ containerPort: 8080 }] }] } },
    },
  };
}
const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels }, spec: { selector, ports: [{ port: 80, targetPort: 8080 }] } };
const pvc: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'web-data', labels }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
const config: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', labels }, data: { MODE: 'production' } };
const ingress: KubeObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', labels },
  spec: {
    ingressClassName: 'nginx',
    tls: [{ hosts: ['shop.example.com'], secretName: 'web-tls' }],
    rules: ['shop.example.com', 'plain.example.com'].map((host) => ({ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } })),
  },
};
const plan = [ingress, deployment(), service, config, pvc];
const ref = (o: KubeObject): KubeRef => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name });

const patches = (kube: KubeApiServer) => kube.requests.filter((r) => r.method === 'PATCH');

describe('openCluster', () => {
  it('takes the namespace from the option, else the kubeconfig context, else default', async () => {
    const kube = await startKubeApiServer({ namespace: 'team-a' });
    servers.push(kube);
    expect(openCluster({ kubeconfig: kube.kubeconfig(join(dir, 'ns-1')) }).namespace).toBe('team-a');
    expect(openCluster({ kubeconfig: kube.kubeconfig(join(dir, 'ns-2')), namespace: 'other' }).namespace).toBe('other');
    expect(openCluster({ kubeconfig: kube.kubeconfig(join(dir, 'ns-3'), { namespace: null }) }).namespace).toBe('default');
  });

  it('reports the API server refusing its token as a KubeApiError with the status', async () => {
    const kube = await startKubeApiServer({});
    servers.push(kube);
    const path = kube.kubeconfig(join(dir, 'wrong-token'));
    writeFileSync(path, readFileSync(path, 'utf8').replace(kube.token, 'not-the-token'));
    const err = await openCluster({ kubeconfig: path }).facts().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(401);
  });

  it('reports an API server that does not answer as a KubeApiError without a status (an error, not a refusal)', async () => {
    const kube = await startKubeApiServer({});
    const path = kube.kubeconfig(join(dir, 'gone'));
    await kube.close();
    const err = (await openCluster({ kubeconfig: path }).status(['web']).catch((e: unknown) => e)) as KubeApiError;
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.status).toBeNull();
    expect(err.message).toMatch(/^read Deployment web: .*ECONNREFUSED/);
  });
});

describe('facts', () => {
  it('reports the version, ingress and storage classes with their defaults, and cert-manager', async () => {
    const { cluster } = await start({
      version: 'v1.30.4',
      certManager: true,
      ingressClasses: [{ name: 'traefik' }, { name: 'nginx', default: true }],
      storageClasses: [{ name: 'local-path', default: true }, { name: 'fast' }],
    });
    expect(await cluster.facts()).toEqual({
      version: 'v1.30.4',
      namespace: 'denv-test',
      ingress_classes: ['traefik', 'nginx'],
      default_ingress_class: 'nginx',
      cert_manager: true,
      storage_classes: ['local-path', 'fast'],
      default_storage_class: 'local-path',
    });
  });

  it('reports no cert-manager, no classes and no defaults when the cluster has none', async () => {
    const { cluster } = await start({ ingressClasses: [{ name: 'nginx' }] });
    expect(await cluster.facts()).toMatchObject({ ingress_classes: ['nginx'], default_ingress_class: null, cert_manager: false, storage_classes: [], default_storage_class: null });
  });
});

describe('apply', () => {
  it('server-side applies each object in the namespace as denv, forced, PVCs to Ingresses in order', async () => {
    const { kube, cluster } = await start();
    const applied = await cluster.apply(plan);
    expect(applied).toEqual([pvc, config, service, deployment(), ingress].map(ref));
    const sent = patches(kube);
    expect(sent.map((r) => r.path)).toEqual([
      '/api/v1/namespaces/denv-test/persistentvolumeclaims/web-data',
      '/api/v1/namespaces/denv-test/configmaps/web-config',
      '/api/v1/namespaces/denv-test/services/web',
      '/apis/apps/v1/namespaces/denv-test/deployments/web',
      '/apis/networking.k8s.io/v1/namespaces/denv-test/ingresses/web',
    ]);
    for (const r of sent) {
      expect(r.contentType).toBe('application/apply-patch+yaml');
      expect(r.query).toMatchObject({ fieldManager: 'denv', force: 'true' });
      expect((r.body as KubeObject).metadata.namespace).toBe('denv-test');
    }
    const stored = kube.objects('Deployment')[0] as KubeObject & { metadata: { managedFields: { manager: string; operation: string }[] } };
    expect(stored.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'denv', operation: 'Apply' })]);
    expect(kube.objects('Pod').map((p) => (p.metadata as { name: string }).name)).toEqual([expect.stringMatching(/^web-[0-9a-f]{10}-0$/)]);
  });

  it('is idempotent: the same plan again changes nothing in the cluster', async () => {
    const { kube, cluster } = await start();
    await cluster.apply(plan);
    const before = kube.objects('Deployment')[0]!.metadata as { resourceVersion: string; generation: number };
    await cluster.apply(plan);
    const after = kube.objects('Deployment')[0]!.metadata as { resourceVersion: string; generation: number };
    expect(after.resourceVersion).toBe(before.resourceVersion);
    expect(after.generation).toBe(1);
  });

  it('keeps a replica count and an annotation changed in the cluster when the plan leaves them out', async () => {
    const { kube, cluster } = await start();
    await cluster.apply([deployment()]);
    kube.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', annotations: { 'example.com/owner': 'ops' } }, spec: { replicas: 3 } });
    await cluster.apply([deployment({ image: 'registry.example.com/shop/web:2' })]);
    const live = kube.objects('Deployment')[0] as { metadata: { annotations: Record<string, string>; generation: number }; spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } };
    expect(live.spec.replicas).toBe(3);
    expect(live.metadata.annotations).toEqual({ 'example.com/owner': 'ops' });
    expect(live.spec.template.spec.containers[0]!.image).toBe('registry.example.com/shop/web:2');
    expect(live.metadata.generation).toBe(3);
    const [status] = await cluster.status(['web']);
    expect(status).toMatchObject({ desired: 3, ready: 3, images: ['registry.example.com/shop/web:2'] });
  });

  it('removes what an earlier apply set and this one leaves out, as server-side apply does; others\' fields stay', async () => {
    const { kube, cluster } = await start();
    const annotated = (a: Record<string, string>): KubeObject => ({ ...config, metadata: { ...config.metadata, annotations: a } });
    await cluster.apply([annotated({ 'denv.dev/a': '1', 'denv.dev/b': '2' })]);
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', annotations: { 'example.com/owner': 'ops' } } });
    await cluster.apply([annotated({ 'denv.dev/a': '1' })]);
    expect((kube.objects('ConfigMap')[0] as { metadata: { annotations: Record<string, string> } }).metadata.annotations).toEqual({ 'denv.dev/a': '1', 'example.com/owner': 'ops' });
    // Leaving out every annotation of its own removes them; the map stays for the other manager's.
    await cluster.apply([config]);
    expect((kube.objects('ConfigMap')[0] as { metadata: { annotations: Record<string, string> } }).metadata.annotations).toEqual({ 'example.com/owner': 'ops' });
  });

  it('refuses, before sending anything, a kind outside the plan kinds, another namespace, or a field the client would drop', async () => {
    const { kube, cluster } = await start();
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: {} };
    await expect(cluster.apply([deployment(), secret])).rejects.toThrow('Secret x: kind Secret is not one a plan may hold');
    await expect(cluster.apply([{ ...config, apiVersion: 'v2' }])).rejects.toThrow('ConfigMap web-config: ConfigMap must be apiVersion v1, not v2');
    await expect(cluster.apply([{ ...config, metadata: { ...config.metadata, namespace: 'kube-system' } }])).rejects.toThrow("namespace kube-system is not the agent's namespace denv-test");
    await expect(cluster.apply([config, config])).rejects.toThrow('ConfigMap web-config: appears twice');
    const typo = structuredClone(deployment()) as unknown as { spec: Record<string, unknown> };
    typo.spec.replica = 2;
    (typo.spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0]!.resource = { limits: { memory: '1Gi' } };
    await expect(cluster.apply([typo as unknown as KubeObject])).rejects.toThrow('Deployment web: unknown fields spec.template.spec.containers[0].resource, spec.replica');
    expect(patches(kube)).toEqual([]);
  });

  it('names the object and gives the API server\'s message when it refuses one; those before it stay applied', async () => {
    const { kube, cluster } = await start();
    const bad = structuredClone(deployment()) as unknown as { spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } } };
    bad.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'http';
    const err = (await cluster.apply([config, bad as unknown as KubeObject, ingress]).catch((e: unknown) => e)) as KubeApiError;
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.status).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toMatch(/^apply Deployment web: Deployment\.apps "web" is invalid: spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: must be integer \(HTTP 422 Invalid\)$/);
    expect(kube.objects('ConfigMap')).toHaveLength(1);
    expect(kube.objects('Ingress')).toHaveLength(0);
  });
});

describe('remove', () => {
  it('deletes exactly the refs given, in the namespace, in the background; a missing one is absent', async () => {
    const { kube, cluster } = await start();
    await cluster.apply(plan);
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'beside', labels }, data: { a: '1' } });
    const gone: KubeRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was' };
    const out = await cluster.remove([ref(service), ref(deployment()), gone]);
    expect(out).toEqual({ deleted: [ref(deployment()), ref(service)], absent: [gone] });
    const deletes = kube.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.path)).toEqual(['/apis/apps/v1/namespaces/denv-test/deployments/web', '/api/v1/namespaces/denv-test/services/web', '/api/v1/namespaces/denv-test/configmaps/never-was']);
    for (const d of deletes) expect(d.query.propagationPolicy).toBe('Background');
    expect(kube.objects('ConfigMap').map((o) => (o.metadata as { name: string }).name).sort()).toEqual(['beside', 'web-config']);
    expect(kube.objects('Deployment')).toEqual([]);
    expect(kube.objects('Pod')).toEqual([]);
    expect(kube.objects('Ingress')).toHaveLength(1);
    expect(await cluster.remove([ref(service)])).toEqual({ deleted: [], absent: [ref(service)] });
  });

  it('refuses a ref outside the plan kinds', async () => {
    const { kube, cluster } = await start();
    await expect(cluster.remove([{ apiVersion: 'v1', kind: 'Namespace', name: 'denv-test' }])).rejects.toThrow('kind Namespace is not one a plan may hold');
    expect(kube.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });
});

describe('read and listEnv', () => {
  it('reads the live objects as the API server\'s JSON, skipping missing ones', async () => {
    const { kube, cluster } = await start();
    await cluster.apply([deployment(), config]);
    const live = await cluster.read([ref(config), { apiVersion: 'v1', kind: 'Service', name: 'missing' }, ref(deployment())]);
    expect(live.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual(['ConfigMap web-config', 'Deployment web']);
    expect(live[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'denv-test', labels }, data: { MODE: 'production' } });
    expect(typeof live[0]!.metadata.creationTimestamp).toBe('string');
    expect(live[1]).toMatchObject({ spec: { replicas: 1 }, status: { readyReplicas: 1, observedGeneration: 1 } });
    expect(kube.requests.some((r) => r.path === '/api/v1/namespaces/denv-test/services/missing')).toBe(true);
  });

  it('lists an env\'s live objects of every plan kind by its label, and nothing of another env', async () => {
    const { kube, cluster } = await start();
    await cluster.apply(plan);
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', labels: { [LABEL_ENV]: 'blog' } }, data: {} });
    kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'local-drift', labels: { [LABEL_ENV]: 'shop' } }, data: { added: 'by hand' } });
    const live = await cluster.listEnv('shop');
    expect(live.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`)).toEqual([
      'v1 PersistentVolumeClaim web-data',
      'v1 ConfigMap web-config',
      'v1 ConfigMap local-drift',
      'v1 Service web',
      'apps/v1 Deployment web',
      'networking.k8s.io/v1 Ingress web',
    ]);
    const lists = kube.requests.filter((r) => r.method === 'GET' && r.query.labelSelector !== undefined);
    expect(new Set(lists.map((r) => r.query.labelSelector))).toEqual(new Set(['denv.dev/env=shop']));
    expect(lists.every((r) => r.path.includes('/namespaces/denv-test/'))).toBe(true);
    await expect(cluster.listEnv('shop,app=x')).rejects.toThrow('is not a Kubernetes label value');
  });
});

describe('status', () => {
  it('reports desired, ready, images and pods of each Deployment, leaving out one that does not exist', async () => {
    const { cluster } = await start();
    await cluster.apply([deployment({ replicas: 2 })]);
    const s = await cluster.status(['web', 'nope']);
    expect(s).toEqual([
      {
        name: 'web',
        service: 'web',
        desired: 2,
        ready: 2,
        images: ['registry.example.com/shop/web:1'],
        pods: [0, 1].map((i) => ({ name: expect.stringMatching(new RegExp(`^web-[0-9a-f]{10}-${i}$`)), phase: 'Running', ready: true, restarts: 0, reason: null })),
      },
    ]);
  });

  it('reports a crashing image as not ready, with its reason and restarts counting up', async () => {
    const { kube, cluster } = await start({ failImages: new Set(['registry.example.com/shop/web:bad']) });
    await cluster.apply([deployment({ image: 'registry.example.com/shop/web:bad' })]);
    const [first] = await cluster.status(['web']);
    expect(first).toMatchObject({ desired: 1, ready: 0, pods: [{ phase: 'Running', ready: false, reason: 'CrashLoopBackOff' }] });
    const [second] = await cluster.status(['web']);
    expect(second!.pods[0]!.restarts).toBeGreaterThan(first!.pods[0]!.restarts);
    kube.failImage('registry.example.com/shop/web:bad', 'OOMKilled');
    expect((await cluster.status(['web']))[0]!.pods[0]).toMatchObject({ ready: false, reason: 'OOMKilled' });
    kube.failImage('registry.example.com/shop/web:bad', 'ImagePullBackOff');
    expect((await cluster.status(['web']))[0]!.pods[0]).toMatchObject({ phase: 'Pending', ready: false, restarts: 0, reason: 'ImagePullBackOff' });
  });
});

describe('waitReady', () => {
  it('polls until the Deployments are rolled out', async () => {
    const { kube, cluster } = await start({ readyAfterMs: 700 });
    await cluster.apply([deployment(), deployment({ name: 'worker', replicas: 2 })]);
    const s = await cluster.waitReady(['web', 'worker'], { timeoutMs: 10_000 });
    expect(s.map((w) => [w.name, w.desired, w.ready])).toEqual([
      ['web', 1, 1],
      ['worker', 2, 2],
    ]);
    expect(kube.requests.filter((r) => r.path.endsWith('/deployments/web')).length).toBeGreaterThan(1);
  });

  it('resolves with the not-ready status at the timeout', async () => {
    const { cluster } = await start({ failImages: new Map([['registry.example.com/shop/web:bad', 'ImagePullBackOff' as const]]) });
    await cluster.apply([deployment({ image: 'registry.example.com/shop/web:bad' })]);
    const t0 = Date.now();
    const [s] = await cluster.waitReady(['web'], { timeoutMs: 1200 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1150);
    expect(s).toMatchObject({ desired: 1, ready: 0, pods: [{ ready: false, reason: 'ImagePullBackOff' }] });
  });

  it('does not take a broken rollout for done while the old pods still serve', async () => {
    const { kube, cluster } = await start({ failImages: new Set(['registry.example.com/shop/web:bad']) });
    await cluster.apply([deployment()]);
    await cluster.waitReady(['web'], { timeoutMs: 5000 });
    await cluster.apply([deployment({ image: 'registry.example.com/shop/web:bad' })]);
    const t0 = Date.now();
    const [s] = await cluster.waitReady(['web'], { timeoutMs: 1000 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    // readyReplicas is still 1 (the old pod); the new one crashes.
    expect(s!.ready).toBe(1);
    expect(s!.pods.map((p) => [p.ready, p.reason])).toEqual(expect.arrayContaining([[true, null], [false, 'CrashLoopBackOff']]));
    expect(kube.objects('Pod')).toHaveLength(2);
  });

  it('counts a Deployment scaled to 0 as ready once no pod remains, and waits for one that does not exist', async () => {
    const { cluster } = await start();
    await cluster.apply([deployment({ replicas: 0 })]);
    expect(await cluster.waitReady(['web'], { timeoutMs: 5000 })).toEqual([expect.objectContaining({ desired: 0, ready: 0, pods: [] })]);
    const t0 = Date.now();
    expect(await cluster.waitReady(['web', 'missing'], { timeoutMs: 600 })).toEqual([expect.objectContaining({ name: 'web' })]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
  });

  it('returns at once when aborted', async () => {
    const { cluster } = await start({ failImages: new Set(['registry.example.com/shop/web:bad']) });
    await cluster.apply([deployment({ image: 'registry.example.com/shop/web:bad' })]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    const [s] = await cluster.waitReady(['web'], { timeoutMs: 60_000, signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(s!.ready).toBe(0);
  });
});

describe('logs', () => {
  it('asks each pod for at most 200 timestamped lines and prefixes each with the pod', async () => {
    const { kube, cluster } = await start();
    await cluster.apply([deployment({ replicas: 2 })]);
    kube.setLogs('web', Array.from({ length: 500 }, (_, i) => `line ${i}`));
    const lines = (await cluster.logs('web', 1000)).map((l) => l.text);
    expect(lines).toHaveLength(200);
    for (const l of lines) expect(l).toMatch(/^\[web-[0-9a-f]{10}-[01]\] line \d+$/);
    expect(lines.at(-1)).toMatch(/line 499$/);
    const asked = kube.requests.filter((r) => r.path.endsWith('/log'));
    expect(asked).toHaveLength(2);
    for (const r of asked) expect(r.query).toMatchObject({ tailLines: '200', timestamps: 'true', container: 'web' });
  });

  it('gives the last lines in order, and none for a pod still waiting to start or a Deployment that does not exist', async () => {
    const { kube, cluster } = await start();
    await cluster.apply([deployment()]);
    kube.setLogs('web', ['booting', 'listening on :8080', 'GET / 200']);
    const pod = (kube.objects('Pod')[0]!.metadata as { name: string }).name;
    const last = await cluster.logs('web', 2);
    expect(last.map((l) => l.text)).toEqual([`[${pod}] listening on :8080`, `[${pod}] GET / 200`]);
    for (const l of last) expect(Number.isNaN(Date.parse(l.at!))).toBe(false); // the kubelet's time, kept
    expect(kube.requests.filter((r) => r.path.endsWith('/log')).at(-1)!.query.tailLines).toBe('2');
    kube.failImage('registry.example.com/shop/web:1', 'ImagePullBackOff');
    expect(await cluster.logs('web', 10)).toEqual([]);
    expect(await cluster.logs('nope', 10)).toEqual([]);
    expect(await cluster.logs('web', 0)).toEqual([]);
  });
});

describe('endpoints', () => {
  it('gives each Ingress rule\'s host, https when the host is in its tls', async () => {
    const { cluster } = await start();
    await cluster.apply([service, ingress]);
    expect(await cluster.endpoints(['web', 'missing'])).toEqual(['https://shop.example.com', 'http://plain.example.com']);
  });
});

describe('the local API server refuses what a real one would', () => {
  let kube: KubeApiServer;
  beforeAll(async () => {
    kube = await startKubeApiServer({});
  });
  afterAll(() => kube.close());

  const url = (path: string) => `${kube.url}${path}`;
  const apply = (body: unknown, o: { contentType?: string; query?: string; token?: string | null } = {}) =>
    fetch(url(`/apis/apps/v1/namespaces/denv-test/deployments/web${o.query ?? '?fieldManager=denv&force=true'}`), {
      method: 'PATCH',
      headers: { 'content-type': o.contentType ?? 'application/apply-patch+yaml', ...(o.token === null ? {} : { authorization: `Bearer ${o.token ?? kube.token}` }) },
      body: JSON.stringify(body),
    });

  it('401 without the token', async () => {
    const r = await fetch(url('/version'));
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect((await apply(deployment(), { token: 'wrong' })).status).toBe(401);
  });

  it('415 for a patch that is not server-side apply', async () => {
    const r = await apply(deployment(), { contentType: 'application/merge-patch+json' });
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({ reason: 'UnsupportedMediaType' });
  });

  it('422 without fieldManager=denv', async () => {
    const r = await apply(deployment(), { query: '?force=true' });
    expect(r.status).toBe(422);
    expect((await r.json()).message).toContain('fieldManager: Required value: is required for apply patch');
    expect((await apply(deployment(), { query: '?fieldManager=kubectl' })).status).toBe(422);
  });

  it('422 for a body naming another object than the URL', async () => {
    const r = await apply({ ...deployment(), metadata: { name: 'api' } });
    expect(r.status).toBe(422);
    expect((await r.json()).message).toContain('does not match the name on the URL');
  });

  it('422 with the problems for an invalid Deployment', async () => {
    const d = structuredClone(deployment()) as unknown as { spec: Record<string, unknown> };
    delete d.spec.selector;
    (d.spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0]!.ports = [{ containerPort: '8080' }];
    const r = await apply(d);
    expect(r.status).toBe(422);
    const status = await r.json();
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(status.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.selector', 'spec.template.spec.containers[0].ports[0].containerPort']);
  });

  it('409 when an unforced apply changes a field another manager owns', async () => {
    expect((await apply(deployment())).status).toBe(201);
    kube.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4 } });
    const r = await apply(deployment({ replicas: 1 }), { query: '?fieldManager=denv' });
    expect(r.status).toBe(409);
    expect((await r.json()).message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect((await apply(deployment({ replicas: 1 }))).status).toBe(200);
  });

  it('accepts YAML, and serves no other verb than apply to write', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n';
    const r = await fetch(url('/api/v1/namespaces/denv-test/configmaps/from-yaml?fieldManager=denv'), { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml', authorization: `Bearer ${kube.token}` }, body: yaml });
    expect(r.status).toBe(201);
    const post = await fetch(url('/api/v1/namespaces/denv-test/configmaps'), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${kube.token}` }, body: '{}' });
    expect(post.status).toBe(405);
  });
});
