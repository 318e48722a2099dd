import { describe, expect, it } from 'vitest';
import { PLAN_KINDS, type ClusterFacts, type KubeObject } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec-types.js';
import { buildMessages, type LlmPlanInput } from './prompt.js';

const spec: Spec = {
  services: {
    web: {
      image: 'ghcr.io/acme/web:1.4.2',
      command: null,
      entrypoint: null,
      environment: { DATABASE_HOST: '${DENV_DB_HOST}' },
      working_dir: null,
      ports: [8080],
      volumes: [{ source: 'uploads', target: '/srv/uploads', read_only: false }],
      health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 2000 },
      edge: { hostnames: ['shop.example.com'], tls: 'auto', port: null, drain_ms: 10_000 },
    },
  },
  volumes: ['uploads'],
  warm: null,
  target: 'kubernetes',
  approval: 'required',
  agent: null,
  verifier: null,
  files: { 'secret:api_key': { kind: 'file', entries: [{ path: 'api_key', mode: 0o400, content_b64: 'c3VwZXItc2VjcmV0' }] } },
};

const facts: ClusterFacts = {
  version: 'v1.31.2',
  namespace: 'shop',
  ingress_classes: ['traefik', 'nginx'],
  default_ingress_class: 'nginx',
  cert_manager: true,
  storage_classes: ['local-path'],
  default_storage_class: 'local-path',
};

const liveDeployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: '6a1d…',
    resourceVersion: '88123',
    managedFields: [{ manager: 'denv', operation: 'Apply' }],
    labels: { 'denv.dev/env': 'prod', 'denv.dev/service': 'web' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"huge": true}', 'team.example/owner': 'ops' },
  },
  spec: { replicas: 4 },
  status: { readyReplicas: 4 },
};
const livePvc: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'web-uploads' }, spec: { resources: { requests: { storage: '20Gi' } } } };

const input: LlmPlanInput = {
  spec,
  envName: 'prod',
  facts,
  live: [liveDeployment, livePvc],
  instructions: 'Serve on shop.example.com.\nRe-plan guidance: keep 4 replicas.',
  replacesVersion: 7,
};

describe('buildMessages', () => {
  it('is a system message (the contract) and a user message (the data)', () => {
    const messages = buildMessages(input, []);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    const system = messages[0]!.content;
    expect(system).toContain('Namespace: "shop"');
    for (const kind of PLAN_KINDS) expect(system).toContain(kind);
    for (const label of ['`app.kubernetes.io/managed-by`', '`denv.dev/env`', '`denv.dev/service`', '`denv.dev/volume`']) expect(system).toContain(label);
    expect(system).toContain('has that readinessProbe and livenessProbe');
    expect(system).toContain('resources.limits');
    expect(system).toContain('opened by a line ```yaml');
    expect(system).toContain('Evolve, never recreate');
    expect(system).toContain('ingressClassName "nginx"'); // the default class, not the first listed
    expect(system).toContain('When `ingress.tls` is true: a `tls` entry for those hosts with the TLS secret name given, and the annotation `cert-manager.io/cluster-issuer: letsencrypt`');
    expect(system).toContain('no hostPath volumes, no privileged containers');
    expect(system).toContain('storageClassName "local-path" (the cluster\'s default)');
  });

  it('lays out the user message: env, version, spec, facts, live objects, instructions', () => {
    const user = buildMessages(input, [])[1]!.content;
    const headings = ['Environment: prod', 'Namespace: shop', 'This plan replaces version 7.', '## Compose spec', '## Cluster facts', '## Derived by denv', '## Live objects (2)', '## Instructions'];
    const at = headings.map((h) => user.indexOf(h));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(user).toContain('"image": "ghcr.io/acme/web:1.4.2"');
    expect(user).toContain('"default_ingress_class": "nginx"');
    expect(user.endsWith('## Instructions\nServe on shop.example.com.\nRe-plan guidance: keep 4 replicas.')).toBe(true);
  });

  it('gives the live objects as YAML, by kind then name, without status and server-set metadata', () => {
    const user = buildMessages(input, [])[1]!.content;
    const live = user.slice(user.indexOf('## Live objects (2)'), user.indexOf('## Instructions'));
    expect(live).toBe(
      [
        '## Live objects (2)',
        '```yaml',
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  annotations:',
        '    team.example/owner: ops',
        '  labels:',
        '    denv.dev/env: prod',
        '    denv.dev/service: web',
        '  name: web',
        '  namespace: shop',
        'spec:',
        '  replicas: 4',
        '---',
        'apiVersion: v1',
        'kind: PersistentVolumeClaim',
        'metadata:',
        '  name: web-uploads',
        'spec:',
        '  resources:',
        '    requests:',
        '      storage: 20Gi',
        '```',
        '',
        '',
      ].join('\n'),
    );
  });

  it("gives denv's names, labels, env, probes and resources, keeping live names", () => {
    const user = buildMessages(input, [])[1]!.content;
    const derived = user.slice(user.indexOf('## Derived by denv'), user.indexOf('## Live objects'));
    expect(derived).toBe(
      [
        '## Derived by denv',
        '```yaml',
        'services:',
        '  web:',
        '    env:',
        '      - name: DATABASE_HOST',
        "        value: denv:value:2", // the spec's values are tokens (sealed-values.ts); the spec's own (1) is the unfilled one""
        '      - name: DENV_ENV',
        '        value: prod',
        '      - name: DENV_SERVICE',
        '        value: web',
        '      - name: DENV_WEB_HOST',
        '        value: prod-web',
        '      - name: DENV_WEB_PORT',
        '        value: "8080"',
        '      - name: DENV_VOLUME_UPLOADS',
        '        value: /srv/uploads',
        '      - name: PORT',
        '        value: "8080"',
        '    ingress:',
        '      class: nginx',
        '      hosts:',
        '        - shop.example.com',
        '      tls: true',
        '    labels:',
        '      app.kubernetes.io/managed-by: denv',
        '      denv.dev/env: prod',
        '      denv.dev/service: web',
        '    livenessProbe:',
        '      failureThreshold: 6',
        '      httpGet:',
        '        path: /healthz',
        '        port: 8080',
        '      periodSeconds: 10',
        '      timeoutSeconds: 2',
        '    names:',
        '      container: web',
        '      deployment: web', // the live Deployment of service web keeps its name
        '      ingress: prod-web',
        '      service: prod-web',
        '      tls_secret: prod-web-tls',
        '    readinessProbe:',
        '      failureThreshold: 3',
        '      httpGet:',
        '        path: /healthz',
        '        port: 8080',
        '      periodSeconds: 5',
        '      timeoutSeconds: 2',
        '    resources:',
        '      limits:',
        '        memory: 512Mi',
        '      requests:',
        '        cpu: 100m',
        '        memory: 128Mi',
        'volumes:',
        '  uploads:',
        '    labels:',
        '      app.kubernetes.io/managed-by: denv',
        '      denv.dev/env: prod',
        '      denv.dev/volume: uploads',
        '    names:',
        '      claim: prod-uploads',
        '      pod_volume: data-uploads',
        '```',
        '',
        '',
      ].join('\n'),
    );
  });

  it('says when there is nothing live, no instructions, and no version replaced', () => {
    const user = buildMessages({ ...input, live: [], instructions: '  ', replacesVersion: null }, [])[1]!.content;
    expect(user).toContain('This is the first plan of this environment.');
    expect(user).toContain('## Live objects (0)\nNone: nothing of this environment runs in the cluster yet; create everything.');
    expect(user).toContain('## Instructions\n(none)');
  });

  it('never sends file contents (secrets, configs)', () => {
    const all = buildMessages(input, []).map((m) => m.content).join('\n');
    expect(all).not.toContain('c3VwZXItc2VjcmV0');
    expect(all).toContain('"contents": "withheld"');
  });

  it("never sends an environment value, the spec's or a live object's, nor a live ConfigMap's data; denv's own variables show as they are", () => {
    const secretSpec: Spec = { ...spec, services: { web: { ...spec.services.web!, environment: { DB_PASSWORD: 'pw-spec-6c1e', DATABASE_URL: 'postgres://app:pw-url-77ab@${DENV_DB_HOST}/app' } } } };
    const liveWithEnv: KubeObject = {
      ...liveDeployment,
      spec: { replicas: 4, template: { spec: { containers: [{ name: 'web', image: 'x', env: [{ name: 'EXTRA', value: 'pw-live-0d4f' }, { name: 'PORT', value: '8080' }] }] } } },
    };
    const liveConfig: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { token: 'pw-config-93b2' } };
    const all = buildMessages({ ...input, spec: secretSpec, live: [liveWithEnv, liveConfig] }, []).map((m) => m.content).join('\n');
    for (const secret of ['pw-spec-6c1e', 'pw-url-77ab', 'pw-live-0d4f', 'pw-config-93b2']) expect(all).not.toContain(secret);
    expect(all).toMatch(/- name: EXTRA\n\s+value: denv:value:\d+/);
    expect(all).toMatch(/- name: PORT\n\s+value: "8080"/);
  });

  it('asks for an Ingress only with an ingress class, and for TLS only with cert-manager', () => {
    const noCertManager = buildMessages({ ...input, facts: { ...facts, cert_manager: false } }, []);
    expect(noCertManager[0]!.content).toContain('ingressClassName "nginx"');
    expect(noCertManager[0]!.content).toContain('No TLS: the cluster reports no cert-manager, so the Ingresses serve plain HTTP');
    expect(noCertManager[0]!.content).not.toContain('cert-manager.io/cluster-issuer');
    expect(noCertManager[1]!.content).toContain('      tls: false\n');
    const noClass = buildMessages({ ...input, facts: { ...facts, ingress_classes: [], default_ingress_class: null } }, []);
    expect(noClass[0]!.content).toContain('- No Ingress: the cluster reports no ingress class');
    expect(noClass[0]!.content).not.toContain('ingressClassName');
    expect(noClass[1]!.content).not.toContain('    ingress:\n      class:');
    const firstClass = buildMessages({ ...input, facts: { ...facts, default_ingress_class: null } }, [])[0]!.content;
    expect(firstClass).toContain('ingressClassName "traefik"');
  });

  it('appends each failed try as the reply and its problems', () => {
    const messages = buildMessages(input, [
      { reply: 'first reply', problems: ['the reply has no ```yaml block'] },
      { reply: 'second reply', problems: ['document 1 (ClusterRole/admin): kind ClusterRole is not allowed', 'document 2: metadata.name is missing'] },
    ]);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(messages[2]!.content).toBe('first reply');
    expect(messages[3]!.content).toBe(
      'That reply was rejected:\n- the reply has no ```yaml block\n\nReply again in the same format (the summary, then one ```yaml block) with the complete, corrected set of manifests.',
    );
    expect(messages[4]!.content).toBe('second reply');
    expect(messages[5]!.content).toContain('- document 1 (ClusterRole/admin): kind ClusterRole is not allowed\n- document 2: metadata.name is missing\n');
    expect(messages.slice(0, 2)).toEqual(buildMessages(input, []));
  });

  it('is deterministic: the same input in another key or list order gives the same messages', () => {
    const reordered: LlmPlanInput = {
      replacesVersion: 7,
      instructions: input.instructions,
      live: [livePvc, { status: liveDeployment.status, spec: liveDeployment.spec, metadata: liveDeployment.metadata, kind: 'Deployment', apiVersion: 'apps/v1' }],
      facts: Object.fromEntries(Object.entries(facts).reverse()) as ClusterFacts,
      envName: 'prod',
      spec: Object.fromEntries(Object.entries(spec).reverse()) as unknown as Spec,
    };
    expect(buildMessages(reordered, [])).toEqual(buildMessages(input, []));
    expect(JSON.stringify(buildMessages(input, []))).toBe(JSON.stringify(buildMessages(input, [])));
  });
});
