import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ClusterFacts } from '../../../../contracts/kubernetes.js';
import { loadCompose } from '../../../../contracts/compose/load-compose.js';
import { loadSpec } from '../../../../contracts/load-spec.js';
import { parseSpec } from '../../../../contracts/spec.js';
import { planKubernetes, type KubePlanInput } from './kube-plan.js';
import { validateManifests } from './validate-manifests.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

const FACTS: ClusterFacts = {
  version: 'v1.31.2',
  namespace: 'apps',
  ingress_classes: ['traefik', 'nginx'],
  default_ingress_class: 'nginx',
  cert_manager: true,
  storage_classes: ['standard'],
  default_storage_class: 'standard',
};

const COMPOSE = `
x-denv:
  target: kubernetes
services:
  web:
    image: ghcr.io/acme/web:1.4
    entrypoint: [/app/run]
    command: [serve, --port, "8080"]
    environment:
      DATABASE_URL: postgres://app@\${DENV_DB_HOST}:\${DENV_DB_PORT}/app
    ports: ["8080"]
    cpus: 0.5
    mem_limit: 256m
    x-denv:
      health: {path: /healthz, timeout: 2s}
      edge: {hostnames: [shop.example.com]}
  db:
    image: postgres:16
    user: "999"
    volumes: [pgdata:/var/lib/postgresql/data]
    expose: [5432]
    healthcheck:
      test: [CMD, pg_isready, -U, app]
      interval: 2s
      retries: 5
      start_period: 20s
volumes:
  pgdata: {}
`;

async function input(over: Partial<KubePlanInput> = {}): Promise<KubePlanInput> {
  return { spec: await loadSpec(COMPOSE), envName: 'shop', facts: FACTS, live: [], instructions: '', replacesVersion: null, ...over };
}

const EXPECTED = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shop-pgdata
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/volume: pgdata
spec:
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 1Gi
  storageClassName: standard
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-db
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: db
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/managed-by: denv
      denv.dev/env: shop
      denv.dev/service: db
  strategy:
    type: Recreate
  template:
    metadata:
      labels:
        app.kubernetes.io/managed-by: denv
        denv.dev/env: shop
        denv.dev/service: db
    spec:
      enableServiceLinks: false
      automountServiceAccountToken: false
      securityContext:
        fsGroup: 999
      containers:
        - name: db
          image: postgres:16
          env:
            - name: DENV_ENV
              value: shop
            - name: DENV_SERVICE
              value: db
            - name: DENV_DB_HOST
              value: shop-db
            - name: DENV_DB_PORT
              value: "5432"
            - name: DENV_WEB_HOST
              value: shop-web
            - name: DENV_WEB_PORT
              value: "8080"
            - name: DENV_VOLUME_PGDATA
              value: /var/lib/postgresql/data
            - name: PORT
              value: "5432"
          ports:
            - name: tcp-5432
              containerPort: 5432
              protocol: TCP
          readinessProbe:
            exec:
              command:
                - pg_isready
                - -U
                - app
            periodSeconds: 2
            timeoutSeconds: 30
            failureThreshold: 5
          livenessProbe:
            exec:
              command:
                - pg_isready
                - -U
                - app
            initialDelaySeconds: 20
            periodSeconds: 10
            timeoutSeconds: 30
            failureThreshold: 6
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 512Mi
          volumeMounts:
            - name: data-pgdata
              mountPath: /var/lib/postgresql/data
          securityContext:
            runAsUser: 999
      volumes:
        - name: data-pgdata
          persistentVolumeClaim:
            claimName: shop-pgdata
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop-web
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/managed-by: denv
      denv.dev/env: shop
      denv.dev/service: web
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app.kubernetes.io/managed-by: denv
        denv.dev/env: shop
        denv.dev/service: web
    spec:
      enableServiceLinks: false
      automountServiceAccountToken: false
      containers:
        - name: web
          image: ghcr.io/acme/web:1.4
          command:
            - /app/run
          args:
            - serve
            - --port
            - "8080"
          env:
            - name: DATABASE_URL
              value: postgres://app@shop-db:5432/app
            - name: DENV_ENV
              value: shop
            - name: DENV_SERVICE
              value: web
            - name: DENV_DB_HOST
              value: shop-db
            - name: DENV_DB_PORT
              value: "5432"
            - name: DENV_WEB_HOST
              value: shop-web
            - name: DENV_WEB_PORT
              value: "8080"
            - name: PORT
              value: "8080"
          ports:
            - name: tcp-8080
              containerPort: 8080
              protocol: TCP
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 3
          livenessProbe:
            httpGet:
              path: /healthz
              port: 8080
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 6
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              cpu: 500m
              memory: 256Mi
---
apiVersion: v1
kind: Service
metadata:
  name: shop-db
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: db
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: db
  ports:
    - name: tcp-5432
      port: 5432
      targetPort: 5432
      protocol: TCP
---
apiVersion: v1
kind: Service
metadata:
  name: shop-web
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: web
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: web
  ports:
    - name: tcp-8080
      port: 8080
      targetPort: 8080
      protocol: TCP
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop-web
  labels:
    app.kubernetes.io/managed-by: denv
    denv.dev/env: shop
    denv.dev/service: web
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt
spec:
  ingressClassName: nginx
  tls:
    - hosts:
        - shop.example.com
      secretName: shop-web-tls
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: shop-web
                port:
                  number: 8080
`;

describe('planKubernetes', () => {
  it('a small spec: exact manifests (PVC, Recreate for the claim, probes, resources, Services, Ingress with TLS), valid', async () => {
    const plan = planKubernetes(await input());
    expect(plan.artifact).toBe(EXPECTED);
    expect(validateManifests(plan.manifests, { namespace: 'apps', envName: 'shop' })).toEqual([]);
  });

  it('summary: what is deployed, per service, claims, Ingress, what is not carried over, instructions quoted', async () => {
    const plan = planKubernetes(await input({ instructions: 'Keep costs low.\nNo GPUs.', replacesVersion: 3 }));
    expect(plan.summary).toBe(`Upgrade env shop from version 3 in namespace apps (Kubernetes v1.31.2): 2 services.
- db (Deployment shop-db): image postgres:16; 1 replica; port 5432/tcp; probe command pg_isready -U app; memory limit 512Mi; mounts shop-pgdata (updates stop the old pod first)
- web (Deployment shop-web): image ghcr.io/acme/web:1.4; 1 replica; port 8080/tcp; probe HTTP GET /healthz on port 8080; memory limit 256Mi, CPU limit 500m
Volumes: shop-pgdata (1Gi, ReadWriteOnce, class standard).
Ingress shop-web: shop.example.com (class nginx), TLS by cert-manager (ClusterIssuer letsencrypt, secret shop-web-tls).
Instructions (quoted; the deterministic planner does not act on them):
> Keep costs low.
> No GPUs.`);
  });

  it('without cert-manager: the Ingress has no tls and no issuer annotation, and the summary says why', async () => {
    const plan = planKubernetes(await input({ facts: { ...FACTS, cert_manager: false } }));
    const ingress = plan.manifests.find((m) => m.kind === 'Ingress')!;
    expect(ingress.metadata.annotations).toBeUndefined();
    expect(ingress.spec).toEqual({
      ingressClassName: 'nginx',
      rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop-web', port: { number: 8080 } } } }] } }],
    });
    expect(plan.summary).toContain('Ingress shop-web: shop.example.com (class nginx), no TLS (cert-manager is not installed in the cluster).');
  });

  it('x-denv.edge.tls off: no TLS even with cert-manager', async () => {
    const spec = await loadSpec(COMPOSE.replace('edge: {hostnames: [shop.example.com]}', 'edge: {hostnames: [shop.example.com], tls: "off"}'));
    const plan = planKubernetes(await input({ spec }));
    expect(plan.manifests.find((m) => m.kind === 'Ingress')!.spec).not.toHaveProperty('tls');
    expect(plan.summary).toContain('no TLS (x-denv.edge.tls is off)');
  });

  it('no default ingress class: the first one; no class at all: no Ingress, and the summary says so', async () => {
    const first = planKubernetes(await input({ facts: { ...FACTS, default_ingress_class: null } }));
    expect(first.manifests.find((m) => m.kind === 'Ingress')!.spec).toMatchObject({ ingressClassName: 'traefik' });
    const none = planKubernetes(await input({ facts: { ...FACTS, ingress_classes: [], default_ingress_class: null } }));
    expect(none.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual(['PersistentVolumeClaim/shop-pgdata', 'Deployment/shop-db', 'Deployment/shop-web', 'Service/shop-db', 'Service/shop-web']);
    expect(none.summary).toContain('Ingress: none. The cluster reports no ingress class, so web (shop.example.com) is reachable only inside the cluster.');
  });

  it('no default storage class: the claim names none', async () => {
    const plan = planKubernetes(await input({ facts: { ...FACTS, default_storage_class: null } }));
    expect(plan.manifests[0]!.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
  });

  it('an env name Kubernetes refuses is sanitised (names and the env label), and the plan still validates', async () => {
    const plan = planKubernetes(await input({ envName: 'Feature_X' }));
    const deployment = plan.manifests.find((m) => m.kind === 'Deployment')!;
    expect(deployment.metadata.name).toMatch(/^feature-x-db-[0-9a-f]{6}$/);
    expect(deployment.metadata.labels).toMatchObject({ 'denv.dev/env': 'Feature_X' });
    expect(validateManifests(plan.manifests, { namespace: 'apps', envName: 'Feature_X' })).toEqual([]);
  });

  it('deterministic: two runs give byte-identical artifacts and summaries', async () => {
    const a = planKubernetes(await input({ instructions: 'x' }));
    const b = planKubernetes(await input({ instructions: 'x' }));
    expect(b.artifact).toBe(a.artifact);
    expect(b.summary).toBe(a.summary);
  });

  it('summary: what a Kubernetes target does not carry over, images built from source, a claim shared by two services', async () => {
    const spec = await loadSpec(`
services:
  init:
    image: postgres:16
    user: postgres
    restart: "no"
    command: [initdb]
    volumes: [data:/data]
  db:
    image: postgres:16
    stop_signal: SIGINT
    pids_limit: 100
    depends_on: {init: {condition: service_completed_successfully}}
    volumes: [data:/data]
  app:
    build: .
volumes:
  data: {}
`);
    const plan = planKubernetes(await input({ spec }));
    expect(plan.summary.split('\n').slice(4)).toEqual([
      'Volumes: shop-data (1Gi, ReadWriteOnce, class standard).',
      'Volume data is mounted by db and init: a ReadWriteOnce claim is shared only by pods on one node.',
      'Built from source: app (denv-build/app); the deploy must push the image where the cluster can pull it.',
      'Not carried over to Kubernetes: db: pids limit 100; db: stop signal SIGINT (Kubernetes sends SIGTERM); db: depends_on init (pods start together; the service must wait for them itself); init: user "postgres" (Kubernetes takes a numeric uid; the image\'s user runs); init: restart "no" (a Deployment always restarts its container).',
      'Instructions: none.',
    ]);
  });

  it('refuses what cannot run on Kubernetes, with a clear message', async () => {
    const plan = async (compose: string) => planKubernetes(await input({ spec: await loadSpec(compose) }));
    await expect(plan('services: {app: {command: [node, server.js]}}')).rejects.toThrow('service app has no image: a Kubernetes target runs container images only');
    await expect(plan('services: {app: {image: a, x-denv: {health: {path: /up}}}}')).rejects.toThrow('service app: its http health check (/up) has no port');
    await expect(plan('services: {app: {image: a, x-denv: {edge: {hostnames: [a.example.com]}}}}')).rejects.toThrow('service app has edge hostnames but no port to route to');
    await expect(plan('services: {app: {image: a, tmpfs: [/tmp], volumes: [/etc/app:/etc/app]}}')).rejects.toThrow('service app uses bind mounts: a Kubernetes target cannot carry files yet');
  });

  it('$ stays literal under Kubernetes expansion; tmpfs, read_only, grace period, udp ports, stop-first', async () => {
    const spec = await loadSpec(`
services:
  dns:
    image: coredns/coredns:1.11
    environment: {PASS: "p$$(x)$$$$y"}
    ports: ["53:53/udp", "9153:9153"]
    read_only: true
    tmpfs: [/run]
    stop_grace_period: 45s
    x-denv: {update_order: stop-first}
`);
    const [deployment] = planKubernetes(await input({ spec })).manifests;
    expect(deployment!.spec).toMatchObject({
      strategy: { type: 'Recreate' },
      template: {
        spec: {
          terminationGracePeriodSeconds: 45,
          containers: [
            {
              env: [{ name: 'PASS', value: 'p$$(x)$$$y' }, { name: 'DENV_ENV', value: 'shop' }, { name: 'DENV_SERVICE', value: 'dns' }, { name: 'DENV_DNS_HOST', value: 'shop-dns' }, { name: 'DENV_DNS_PORT', value: '53' }, { name: 'PORT', value: '53' }],
              ports: [{ name: 'udp-53', containerPort: 53, protocol: 'UDP' }, { name: 'tcp-9153', containerPort: 9153, protocol: 'TCP' }],
              readinessProbe: { tcpSocket: { port: 9153 } },
              volumeMounts: [{ name: 'tmpfs-0', mountPath: '/run' }],
              securityContext: { readOnlyRootFilesystem: true },
            },
          ],
          volumes: [{ name: 'tmpfs-0', emptyDir: { medium: 'Memory' } }],
        },
      },
    });
  });
});

/** A FileAccess over the real files (tests only: the corpus has env files and includes). */
const files = { readText: async (p: string) => readFileSync(p, 'utf8'), exists: async (p: string) => existsSync(p) };
const REFUSED = /^service \S+ (has no image: a Kubernetes target runs container images only|uses (secrets|configs|bind mounts)[a-z, ]*: a Kubernetes target cannot carry files yet)/;

describe('real Compose files', () => {
  const examples = readdirSync(path.join(ROOT, 'examples')).filter((d) => existsSync(path.join(ROOT, 'examples', d, 'compose.yaml')));

  it.each(examples)('examples/%s: plans and validates, or (process services) throws the clear error', async (app) => {
    const dir = path.join(ROOT, 'examples', app);
    const spec = await loadSpec(readFileSync(path.join(dir, 'compose.yaml'), 'utf8'), { projectDir: dir });
    const run = () => planKubernetes({ spec, envName: app, facts: FACTS, live: [], instructions: '', replacesVersion: null });
    if (Object.values(spec.services).some((s) => s.image === null)) expect(run).toThrow(/^service \S+ has no image: a Kubernetes target runs container images only$/);
    else expect(validateManifests(run().manifests, { namespace: FACTS.namespace, envName: app })).toEqual([]);
  });

  it('every app of test/compose-corpus that loads without packed files plans to valid manifests, or is refused clearly', async () => {
    const corpus = path.join(ROOT, 'test', 'compose-corpus');
    const planned: string[] = [];
    for (const app of readdirSync(corpus).sort()) {
      const dir = path.join(corpus, app);
      let spec;
      try {
        const { model } = await loadCompose({ text: readFileSync(path.join(dir, 'compose.yaml'), 'utf8'), projectDir: dir, env: {}, files });
        spec = parseSpec(model);
      } catch {
        continue; // secrets/configs the CLI would pack
      }
      let plan;
      try {
        plan = planKubernetes({ spec, envName: app, facts: FACTS, live: [], instructions: '', replacesVersion: null });
      } catch (err) {
        expect((err as Error).message, app).toMatch(REFUSED);
        continue;
      }
      expect(validateManifests(plan.manifests, { namespace: FACTS.namespace, envName: app }), app).toEqual([]);
      planned.push(app);
    }
    expect(planned.length).toBeGreaterThanOrEqual(10);
  });
});
