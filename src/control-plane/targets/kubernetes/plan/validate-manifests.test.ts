import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import { validateManifests } from './validate-manifests.js';

const RULES = { namespace: 'apps', envName: 'prod' };
const LABELS = { 'app.kubernetes.io/managed-by': 'denv', 'denv.dev/env': 'prod', 'denv.dev/service': 'web' };

function deployment(over: { metadata?: Record<string, unknown>; pod?: Record<string, unknown>; spec?: Record<string, unknown> } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'prod-web', labels: LABELS, ...over.metadata },
    spec: {
      replicas: 1,
      selector: { matchLabels: LABELS },
      template: { metadata: { labels: LABELS }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...over.pod } },
      ...over.spec,
    },
  };
}

describe('validateManifests', () => {
  it('a valid Deployment: no problems', () => {
    expect(validateManifests([deployment()], RULES)).toEqual([]);
  });

  it('refuses a kind outside PLAN_KINDS, a wrong apiVersion, and a document without identity', () => {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'admin', labels: LABELS }, rules: [] };
    expect(validateManifests([role, { ...deployment(), apiVersion: 'apps/v1beta1' }, 'text', { kind: 'Service', metadata: {} }], RULES)).toEqual([
      'document 1 (ClusterRole admin): kind ClusterRole is not allowed in a denv plan (allowed: Deployment, Service, PersistentVolumeClaim, Ingress, ConfigMap)',
      'document 2 (Deployment prod-web): apiVersion must be apps/v1 for Deployment, not apps/v1beta1',
      'document 3: expected an object with apiVersion, kind and metadata.name',
      'document 4: expected an object with apiVersion, kind and metadata.name',
    ]);
  });

  it('refuses another namespace, a bad name, a missing or wrong env label; accepts the agent\'s namespace', () => {
    expect(validateManifests([deployment({ metadata: { namespace: 'apps' } })], RULES)).toEqual([]);
    expect(validateManifests([deployment({ metadata: { namespace: 'kube-system', name: 'Prod_Web', labels: { ...LABELS, 'denv.dev/env': 'staging' } } })], RULES)).toEqual([
      'document 1 (Deployment Prod_Web): metadata.namespace: must be absent or "apps" (the agent\'s namespace), not "kube-system"',
      'document 1 (Deployment Prod_Web): metadata.name: a Deployment name must be a DNS-1123 label: at most 63 lower-case letters, digits and -, starting and ending with a letter or digit',
      'document 1 (Deployment Prod_Web): metadata.labels.denv.dev/env: must be "prod"',
    ]);
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: '1-web', labels: LABELS }, spec: { ports: [{ port: 80 }] } };
    expect(validateManifests([service], RULES)).toEqual(['document 1 (Service 1-web): metadata.name: a Service name must be a DNS-1035 label: at most 63 lower-case letters, digits and -, starting with a letter']);
  });

  it('refuses invalid fields, per the Kubernetes schemas, with their paths', () => {
    const doc = deployment({ spec: { replicas: 'three' }, pod: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 'http' }] }] } });
    expect(validateManifests([doc], RULES)).toEqual([
      'document 1 (Deployment prod-web): spec.replicas: must be integer',
      'document 1 (Deployment prod-web): spec.template.spec.containers.0.ports.0.containerPort: must be integer',
    ]);
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'prod-data', labels: LABELS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Tape' } };
    expect(validateManifests([claim], RULES)).toEqual(['document 1 (PersistentVolumeClaim prod-data): spec.volumeMode: expected one of Block, Filesystem']);
  });

  it('adds what the schemas leave to the API server: selector, containers, names, images, mounts', () => {
    expect(validateManifests([deployment({ spec: { selector: {} }, pod: { containers: [] } })], RULES)).toEqual([
      'document 1 (Deployment prod-web): spec.selector: must not be empty',
      'document 1 (Deployment prod-web): spec.template.spec.containers: must not be empty',
    ]);
    const odd = deployment({
      spec: { selector: { matchLabels: { ...LABELS, tier: 'web' } } },
      pod: { containers: [{ name: 'web', image: '' }, { name: 'web', image: 'b', volumeMounts: [{ name: 'data', mountPath: '/d' }] }, { image: 'c' }, { name: 'Side_Car', image: 'd' }] },
    });
    expect(validateManifests([odd], RULES)).toEqual([
      'document 1 (Deployment prod-web): spec.template.spec.containers.2.name: required',
      'document 1 (Deployment prod-web): spec.template.metadata.labels: must match spec.selector (tier=web)',
      'document 1 (Deployment prod-web): spec.template.spec.containers.0.image: required',
      'document 1 (Deployment prod-web): spec.template.spec.containers.1.name: "web" is used twice',
      'document 1 (Deployment prod-web): spec.template.spec.containers.1.volumeMounts.0.name: no volume named "data" in the pod',
      'document 1 (Deployment prod-web): spec.template.spec.containers.3.name: must be a DNS-1123 label',
    ]);
  });

  it('refuses hostPath volumes, privileged containers and host namespaces', () => {
    const doc = deployment({
      pod: {
        hostNetwork: true,
        volumes: [{ name: 'sock', hostPath: { path: '/var/run/docker.sock' } }],
        initContainers: [{ name: 'init', image: 'busybox', securityContext: { privileged: true } }],
      },
    });
    expect(validateManifests([doc], RULES)).toEqual([
      'document 1 (Deployment prod-web): spec.template.spec.hostNetwork: not allowed in a denv plan',
      'document 1 (Deployment prod-web): spec.template.spec.volumes.0.hostPath: not allowed in a denv plan (a pod must not reach the node\'s files)',
      'document 1 (Deployment prod-web): spec.template.spec.initContainers.0.securityContext.privileged: not allowed in a denv plan',
    ]);
  });

  it('refuses an object listed twice, a Service without ports, a claim without size', () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'prod-web', labels: LABELS }, spec: { selector: LABELS } };
    const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'prod-data', labels: LABELS }, spec: { accessModes: [] } };
    expect(validateManifests([deployment(), deployment(), service, claim], RULES)).toEqual([
      'document 2 (Deployment prod-web): the same Deployment as document 1',
      'document 3 (Service prod-web): spec.ports: must not be empty',
      'document 4 (PersistentVolumeClaim prod-data): spec.accessModes: must not be empty',
      'document 4 (PersistentVolumeClaim prod-data): spec.resources.requests.storage: required',
    ]);
  });
});
