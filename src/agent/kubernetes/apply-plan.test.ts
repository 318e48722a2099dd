/** The pure parts of an apply: which kinds a plan may hold, their order, and what client-node would drop. */
import { describe, expect, it } from 'vitest';
import { PLAN_KINDS } from '../../contracts/kubernetes.js';
import { droppedFields, plainObject } from './kube-json.js';
import { orderForApply } from './order-for-apply.js';
import { PLAN_KIND_INFO, planKindOf } from './plan-kinds.js';

describe('plan kinds', () => {
  it('places every plan kind of the contracts', () => {
    expect(Object.keys(PLAN_KIND_INFO).sort()).toEqual([...PLAN_KINDS].sort());
  });

  it('orders PVCs, ConfigMaps, Services, Deployments, Ingresses, keeping the given order within a kind', () => {
    const items = ['Ingress/a', 'Deployment/b', 'Service/c', 'Deployment/a', 'ConfigMap/x', 'PersistentVolumeClaim/d'].map((s) => ({ kind: s.split('/')[0]!, name: s.split('/')[1]! }));
    expect(orderForApply(items).map((i) => `${i.kind}/${i.name}`)).toEqual(['PersistentVolumeClaim/d', 'ConfigMap/x', 'Service/c', 'Deployment/b', 'Deployment/a', 'Ingress/a']);
  });

  it('refuses other kinds, and plan kinds under another apiVersion', () => {
    expect(planKindOf({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'x')).toBe('Deployment');
    expect(() => planKindOf({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' }, 'ClusterRoleBinding x')).toThrow('ClusterRoleBinding x: kind ClusterRoleBinding is not one a plan may hold');
    expect(() => planKindOf({ apiVersion: 'extensions/v1beta1', kind: 'Ingress' }, 'Ingress x')).toThrow('Ingress must be apiVersion networking.k8s.io/v1');
    expect(() => planKindOf({ apiVersion: 'v1', kind: 'toString' }, 'x')).toThrow('not one a plan may hold');
  });
});

describe('client-node serialization', () => {
  it('lists the fields its models would drop, and none of a well-formed manifest (maps and int-or-string kept)', () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { 'denv.dev/env': 'shop' }, annotations: { 'x/y': 'z' } }, spec: { ports: [{ port: 80, targetPort: 'http' }], selector: { app: 'web' } } };
    expect(droppedFields(svc)).toEqual([]);
    expect(droppedFields({ ...svc, spec: { ...svc.spec, ports: [{ port: 80, tragetPort: 8080 }] }, extra: 1 })).toEqual(['spec.ports[0].tragetPort', 'extra']);
  });

  it('turns a model back into the API\'s JSON, with apiVersion and kind', () => {
    const json = plainObject({ metadata: { name: 'c', creationTimestamp: new Date('2024-05-01T10:00:00Z') }, data: { a: '1' } }, 'v1', 'ConfigMap');
    expect(json).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: '2024-05-01T10:00:00.000Z' }, data: { a: '1' } });
  });
});
