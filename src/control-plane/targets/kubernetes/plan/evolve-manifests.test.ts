import { describe, expect, it } from 'vitest';
import type { ClusterFacts, KubeObject } from '../../../../contracts/kubernetes.js';
import { loadSpec } from '../../../../contracts/load-spec.js';
import { evolveManifests } from './evolve-manifests.js';
import { planKubernetes } from './kube-plan.js';
import { validateManifests } from './validate-manifests.js';

const FACTS: ClusterFacts = { version: 'v1.30.0', namespace: 'apps', ingress_classes: ['nginx'], default_ingress_class: 'nginx', cert_manager: false, storage_classes: ['fast'], default_storage_class: 'fast' };

const COMPOSE = `
services:
  web:
    image: ghcr.io/acme/web:2
    ports: ["8080"]
    environment: {REDIS: "\${DENV_CACHE_HOST}:\${DENV_CACHE_PORT}"}
    volumes: [uploads:/srv/uploads]
    x-denv: {edge: {hostnames: [web.example.com]}}
  cache:
    image: redis:7
    expose: [6379]
volumes:
  uploads: {}
`;

/** The cluster's view of a planned object: what the API server adds. */
function asLive(o: KubeObject, patch: (o: Record<string, any>) => void = () => {}): KubeObject {
  const live = structuredClone(o) as Record<string, any>;
  live.metadata = { ...live.metadata, namespace: 'apps', uid: 'u-1', resourceVersion: '77', annotations: { ...live.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '4' } };
  live.status = { observedGeneration: 4 };
  patch(live);
  return live as KubeObject;
}

async function plan(live: readonly KubeObject[] = []) {
  return planKubernetes({ spec: await loadSpec(COMPOSE), envName: 'prod', facts: FACTS, live, instructions: '', replacesVersion: live.length > 0 ? 1 : null });
}

const find = (ms: readonly KubeObject[], kind: string, name: string): Record<string, any> => ms.find((m) => m.kind === kind && m.metadata.name === name) as Record<string, any>;

describe('evolve', () => {
  it('the live objects of an unchanged plan evolve to the same plan (cluster bookkeeping is not copied)', async () => {
    const first = await plan();
    const again = await plan(first.manifests.map((m) => asLive(m)));
    expect(again.artifact).toBe(first.artifact);
    expect(again.summary).not.toContain('Kept from the cluster');
  });

  it('a Deployment scaled to 3 and annotated in the cluster keeps both; denv label values win', async () => {
    const first = await plan();
    const live = first.manifests.map((m) =>
      m.kind === 'Deployment' && m.metadata.name === 'prod-web'
        ? asLive(m, (o) => {
            o.spec.replicas = 3;
            o.metadata.annotations['team.example.com/owner'] = 'ops';
            o.metadata.labels['team.example.com/tier'] = 'frontend';
            o.metadata.labels['denv.dev/service'] = 'web'; // same
            o.metadata.labels['app.kubernetes.io/managed-by'] = 'helm'; // denv's key: the plan's value wins
          })
        : asLive(m),
    );
    const again = await plan(live);
    const web = find(again.manifests, 'Deployment', 'prod-web');
    expect(web.spec.replicas).toBe(3);
    expect(web.metadata).toEqual({
      name: 'prod-web',
      labels: { 'app.kubernetes.io/managed-by': 'denv', 'denv.dev/env': 'prod', 'denv.dev/service': 'web', 'team.example.com/tier': 'frontend' },
      annotations: { 'team.example.com/owner': 'ops' },
    });
    expect(again.summary).toContain(
      'Kept from the cluster: Deployment prod-web keeps labels added in the cluster: team.example.com/tier; Deployment prod-web keeps annotations added in the cluster: team.example.com/owner; Deployment prod-web keeps 3 replicas (scaled in the cluster).',
    );
    expect(again.summary).toContain('- web (Deployment prod-web): image ghcr.io/acme/web:2; 3 replicas;');
    expect(validateManifests(again.manifests, { namespace: 'apps', envName: 'prod' })).toEqual([]);
  });

  it('a live replica count of 0 is denv\'s own stop: the plan\'s count stands', async () => {
    const first = await plan();
    const again = await plan(first.manifests.map((m) => asLive(m, (o) => m.kind === 'Deployment' && (o.spec.replicas = 0))));
    expect(find(again.manifests, 'Deployment', 'prod-web').spec.replicas).toBe(1);
  });

  it('live names differing from the planned ones are kept, and every reference follows (claimName, Ingress backend, DENV_<S>_HOST)', async () => {
    const first = await plan();
    const live = first.manifests.map((m) =>
      asLive(m, (o) => {
        if (m.kind === 'Service' && m.metadata.name === 'prod-cache') o.metadata.name = 'redis-master';
        if (m.kind === 'Service' && m.metadata.name === 'prod-web') o.metadata.name = 'web-svc';
        if (m.kind === 'Deployment' && m.metadata.name === 'prod-web') o.metadata.name = 'web-legacy';
        if (m.kind === 'PersistentVolumeClaim') o.metadata.name = 'uploads-claim-2023'; // found by its denv.dev/volume label
      }),
    );
    const again = await plan(live);
    expect(again.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'PersistentVolumeClaim/uploads-claim-2023',
      'Deployment/prod-cache',
      'Deployment/web-legacy',
      'Service/redis-master',
      'Service/web-svc',
      'Ingress/prod-web',
    ]);
    const web = find(again.manifests, 'Deployment', 'web-legacy');
    expect(web.spec.template.spec.volumes).toEqual([{ name: 'data-uploads', persistentVolumeClaim: { claimName: 'uploads-claim-2023' } }]);
    expect(web.spec.template.spec.containers[0].env.slice(0, 1)).toEqual([{ name: 'REDIS', value: 'redis-master:6379' }]);
    expect(find(again.manifests, 'Ingress', 'prod-web').spec.rules[0].http.paths[0].backend).toEqual({ service: { name: 'web-svc', port: { number: 8080 } } });
    expect(again.summary).toContain(
      'Kept from the cluster: Service redis-master keeps its live name (planned: prod-cache); Deployment web-legacy keeps its live name (planned: prod-web); Service web-svc keeps its live name (planned: prod-web); PersistentVolumeClaim uploads-claim-2023 keeps its live name (planned: prod-uploads).',
    );
    expect(validateManifests(again.manifests, { namespace: 'apps', envName: 'prod' })).toEqual([]);
  });

  it('a live PVC is reused as it is (size, class, access mode), and one no longer mounted is carried over', async () => {
    const first = await plan();
    const claim = first.manifests.find((m) => m.kind === 'PersistentVolumeClaim')!;
    const live = [
      asLive(claim, (o) => {
        o.spec = { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '20Gi' } }, storageClassName: 'slow-nfs', volumeName: 'pvc-123', volumeMode: 'Filesystem' };
        o.metadata.annotations['pv.kubernetes.io/bind-completed'] = 'yes';
      }),
      asLive({ ...claim, metadata: { name: 'prod-oldcache', labels: { 'app.kubernetes.io/managed-by': 'denv', 'denv.dev/env': 'prod', 'denv.dev/volume': 'oldcache' } } }),
    ];
    const again = await plan(live);
    expect(find(again.manifests, 'PersistentVolumeClaim', 'prod-uploads')).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'prod-uploads', labels: { 'app.kubernetes.io/managed-by': 'denv', 'denv.dev/env': 'prod', 'denv.dev/volume': 'uploads' } },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '20Gi' } }, storageClassName: 'slow-nfs' },
    });
    expect(find(again.manifests, 'PersistentVolumeClaim', 'prod-oldcache')).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'prod-oldcache', labels: { 'app.kubernetes.io/managed-by': 'denv', 'denv.dev/env': 'prod', 'denv.dev/volume': 'oldcache' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
    });
    expect(again.summary).toContain(
      'Kept from the cluster: PersistentVolumeClaim prod-uploads reused as it is (20Gi, ReadWriteMany, class slow-nfs; the plan alone would ask 1Gi, ReadWriteOnce, class fast); PersistentVolumeClaim prod-oldcache is no longer mounted and is kept with its data.',
    );
    expect(validateManifests(again.manifests, { namespace: 'apps', envName: 'prod' })).toEqual([]);
  });

  it('a live Deployment with another selector keeps it (immutable), and its pods carry its labels', () => {
    const planned: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'p-web', labels: { 'denv.dev/env': 'p', 'denv.dev/service': 'web' } },
      spec: { replicas: 1, selector: { matchLabels: { 'denv.dev/service': 'web' } }, template: { metadata: { labels: { 'denv.dev/service': 'web' } }, spec: { containers: [] } } },
    };
    const live: KubeObject = { ...planned, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } } };
    const { manifests, preserved } = evolveManifests([planned], [live]);
    expect(manifests[0]!.spec).toEqual({ replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { 'denv.dev/service': 'web', app: 'web' } }, spec: { containers: [] } } });
    expect(preserved).toEqual(['Deployment p-web keeps its live selector (immutable)']);
    // The same selector with its keys in another order is the same selector.
    const two: KubeObject = { ...planned, spec: { selector: { matchLabels: { 'denv.dev/service': 'web', 'denv.dev/env': 'p' } } } };
    const sorted: KubeObject = { ...planned, spec: { selector: { matchLabels: { 'denv.dev/env': 'p', 'denv.dev/service': 'web' } } } };
    expect(evolveManifests([two], [sorted]).preserved).toEqual([]);
  });

  it('live objects of a service the spec no longer has are named in the summary, not in the plan', async () => {
    const first = await plan();
    const gone: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'prod-worker', labels: { 'denv.dev/env': 'prod', 'denv.dev/service': 'worker' } } };
    const again = await plan([...first.manifests.map((m) => asLive(m)), gone]);
    expect(again.manifests.some((m) => m.metadata.name === 'prod-worker')).toBe(false);
    expect(again.summary).toContain('Not in this plan, left as they are in the cluster: Deployment prod-worker.');
  });

  it('the order of live objects does not matter', async () => {
    const first = await plan();
    const live = first.manifests.map((m) => asLive(m, (o) => m.kind === 'Deployment' && (o.spec.replicas = 2)));
    expect((await plan([...live].reverse())).artifact).toBe((await plan(live)).artifact);
  });
});
