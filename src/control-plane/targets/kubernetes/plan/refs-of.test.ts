import { expect, it } from 'vitest';
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import { refsOf } from './refs-of.js';

it('refsOf: every object of the plan once, in reverse plan order', () => {
  const o = (apiVersion: string, kind: string, name: string): KubeObject => ({ apiVersion, kind, metadata: { name }, spec: {} });
  const plan = [o('v1', 'PersistentVolumeClaim', 'prod-data'), o('apps/v1', 'Deployment', 'prod-web'), o('v1', 'Service', 'prod-web'), o('networking.k8s.io/v1', 'Ingress', 'prod-web'), o('v1', 'Service', 'prod-web')];
  expect(refsOf(plan)).toEqual([
    { apiVersion: 'v1', kind: 'Service', name: 'prod-web' },
    { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'prod-web' },
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'prod-web' },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'prod-data' },
  ]);
  expect(refsOf([])).toEqual([]);
});
