import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import { withImages, withReplicas } from './patch-manifests.js';

const labels = (service: string) => ({ 'denv.dev/env': 'prod', 'denv.dev/service': service });
const deployment = (service: string, containers: object[], replicas = 1): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `prod-${service.toLowerCase().replace('_', '-')}`, labels: labels(service) },
  spec: { replicas, template: { spec: { containers } } },
});
const claim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'prod-data', labels: { 'denv.dev/env': 'prod' } }, spec: { accessModes: ['ReadWriteOnce'] } };
const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'prod-web', labels: labels('web') }, spec: { ports: [{ port: 80 }] } };

const PLAN: readonly KubeObject[] = [
  claim,
  deployment('web', [{ name: 'proxy', image: 'envoy:1' }, { name: 'web', image: 'web:1' }]),
  deployment('worker', [{ name: 'main', image: 'worker:1' }], 2),
  deployment('db', [{ name: 'db', image: 'postgres:16' }]),
  service,
];

describe('withImages', () => {
  it("replaces the image of each named service's container (by name, else the first), leaves the rest, copies", () => {
    const before = structuredClone(PLAN);
    const out = withImages(PLAN, { web: 'registry.example.com/web@sha256:abc', worker: 'worker:2', ghost: 'x:1' });
    expect(out).toEqual([
      claim,
      deployment('web', [{ name: 'proxy', image: 'envoy:1' }, { name: 'web', image: 'registry.example.com/web@sha256:abc' }]),
      deployment('worker', [{ name: 'main', image: 'worker:2' }], 2),
      deployment('db', [{ name: 'db', image: 'postgres:16' }]),
      service,
    ]);
    expect(PLAN).toEqual(before);
    expect(out[0]).not.toBe(PLAN[0]);
  });

  it('finds a service whose name was sanitised for its label', () => {
    const d: KubeObject = { ...deployment('api', [{ name: 'api-v2-cdd17a', image: 'a:1' }]), metadata: { name: 'prod-api', labels: { 'denv.dev/service': 'api-v2-cdd17a' } } };
    expect(withImages([d], { 'api v2': 'a:2' })[0]!.spec).toEqual({ replicas: 1, template: { spec: { containers: [{ name: 'api-v2-cdd17a', image: 'a:1' }] } } });
  });
});

describe('withReplicas', () => {
  it('0: every Deployment scaled to zero, nothing else touched; null: an unchanged copy', () => {
    expect(withReplicas(PLAN, 0)).toEqual([
      claim,
      deployment('web', [{ name: 'proxy', image: 'envoy:1' }, { name: 'web', image: 'web:1' }], 0),
      deployment('worker', [{ name: 'main', image: 'worker:1' }], 0),
      deployment('db', [{ name: 'db', image: 'postgres:16' }], 0),
      service,
    ]);
    const same = withReplicas(PLAN, null);
    expect(same).toEqual(PLAN);
    expect(same[1]).not.toBe(PLAN[1]);
  });
});
