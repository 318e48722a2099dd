/**
 * The LLM planner of a Kubernetes target, end to end: a control plane, a real cluster agent process
 * (`denv agent --kubernetes`) against the local Kubernetes API server, and a local OpenAI-compatible
 * chat-completions endpoint (test/helpers/openai-server.ts) scripted with the model's replies. The
 * project's planner is set through the CLI (`denv project planner`, a real `bin/denv` process), its
 * key read from a file. The valid replies carry manifests built by the deterministic planner's own
 * builders for the same spec, cluster and env, plus marks of the model's own (an annotation, another
 * image), so the test can tell the model's plan is what was stored and applied.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ClusterFacts, KubeObject } from '../../src/contracts/kubernetes.js';
import { parseSpec } from '../../src/contracts/spec.js';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { manifestsYaml, planKubernetes } from '../../src/control-plane/targets/kubernetes/plan/index.js';
import { Api, waitFor } from '../helpers/api.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { startKubeApiServer, type KubeApiServer } from '../helpers/kube-api-server.js';
import { startOpenAiServer, type FakeOpenAi } from '../helpers/openai-server.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';
import { denvJson, spawnDenv, type Child } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const IMAGE = 'registry.example.test/shop:1.0';
/** What the model writes in its Deployment: the deploy must run the spec's image all the same. */
const MODEL_IMAGE = 'docker.io/library/nginx:latest';
const MODEL = 'gpt-4.1-mini';
const KEY_A = 'sk-test-a71c04e9d3b28f56';
const KEY_B = 'sk-test-b5e2d8073c9a41f0';
const FENCE = '```';
const GUIDANCE = 'Keep the uploads claim at 1Gi and say so in the summary.';
/** An environment value: the endpoint is shown a token for it (llm/sealed-values.ts), never the value. */
const SECRET = 'tok-e2e-51c9f0a7d2';
/** The spec's one value is the first sealed: the model copies its token. */
const SECRET_TOKEN = 'denv:value:1';

const compose = (hostname: string) => ({
  services: {
    web: {
      image: IMAGE,
      ports: ['8080'],
      environment: { SHOP_TOKEN: SECRET },
      volumes: ['uploads:/srv/uploads'],
      'x-denv': { health: { path: '/healthz', port: 8080 }, edge: { hostnames: [hostname] } },
    },
  },
  volumes: { uploads: {} },
  'x-denv': { target: 'kubernetes' },
});

/** The model's manifests for env `<project>-<env>`: the deterministic plan, its Deployment given the
 *  model's image, an annotation of its own and the token it was shown for the secret; `change` may
 *  break them further. */
function modelManifests(facts: ClusterFacts, clusterEnv: string, hostname: string, change: (m: KubeObject) => KubeObject = (m) => m): KubeObject[] {
  const { manifests } = planKubernetes({ spec: parseSpec(compose(hostname)), envName: clusterEnv, facts, live: [], instructions: '', replacesVersion: null });
  return manifests.map((m) => {
    if (m.kind !== 'Deployment') return change(m);
    const copy = structuredClone(m) as KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } };
    copy.spec.template.spec.containers[0]!.image = MODEL_IMAGE;
    const container = copy.spec.template.spec.containers[0] as unknown as { env: { name: string; value: string }[] };
    container.env = container.env.map((e) => (e.value === SECRET ? { ...e, value: SECRET_TOKEN } : e));
    return change({ ...copy, metadata: { ...copy.metadata, annotations: { ...copy.metadata.annotations, 'example.test/planned-by': 'llm' } } });
  });
}

/** A reply in the format the system prompt demands (llm/reply.ts): the summary, then one ```yaml block. */
const reply = (summary: string, yaml: string) => `${summary}\n\n${FENCE}yaml\n${yaml}${FENCE}\n`;

const writes = (k: KubeApiServer) => k.requests.filter((r) => r.method !== 'GET');
const keyFile = (key: string) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'denv-llm-key-')), 'key');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
};

describe('kubernetes target: the LLM planner', () => {
  let cp: ControlPlane;
  let api: Api;
  let kube: KubeApiServer;
  let agent: Child;
  let facts: ClusterFacts;
  const servers: FakeOpenAi[] = [];

  beforeAll(async () => {
    kube = await startKubeApiServer({ certManager: true, ingressClasses: [{ name: 'nginx', default: true }], storageClasses: [{ name: 'standard', default: true }] });
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    const kubeconfig = kube.kubeconfig(path.join(mkdtempSync(path.join(tmpdir(), 'denv-kube-')), 'kubeconfig'));
    agent = spawnDenv(['agent', '--kubernetes', '--kubeconfig', kubeconfig, '--control', cp.url, '--data-dir', path.join(dir, 'cluster-agent'), '--name', 'cluster-a'], { DENV_ENROLLMENT_KEY: await cp.createEnrollmentKey() });
    const host = await waitFor(async () => (await api.get('/v1/hosts')).body.items.find((h: { name: string; status: string }) => h.name === 'cluster-a' && h.status === 'connected'), 30_000, 'the cluster agent to connect');
    facts = host.facts.cluster;
    expect((await api.post('/v1/projects', { name: 'shop', approval: 'required' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await agent?.kill();
    await cp?.close();
    await kube?.close();
    for (const s of servers) await s.close();
  });

  const env = async (id: string) => (await api.get(`/v1/envs/${id}`)).body;
  const statusIs = (id: string, s: string) =>
    waitFor(async () => ((await env(id)).status === s ? true : undefined), 60_000, `env ${id} to be ${s}`).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(await env(id))}`);
    });
  const latestPlan = async (id: string) => (await api.get(`/v1/envs/${id}/plans`)).body.items[0];
  /** The env once its planning ended (either way: a failed plan fails the test at once, with the env's last_error). */
  const planned = async (id: string) => {
    const e = await waitFor(async () => ((await env(id)).status !== 'planning' ? env(id) : undefined), 60_000, `env ${id} to be planned`);
    expect(e.status, JSON.stringify(e)).toBe('awaiting_approval');
  };

  let a: FakeOpenAi;
  const SUMMARY_A = 'Runs web (registry.example.test/shop:1.0) as one Deployment behind a Service, with an nginx Ingress for shop.example.test (TLS by cert-manager) and a 1Gi claim for uploads.';
  let productionId: string;

  it('the planner is set through the CLI; the project shows it without its key', async () => {
    const production = modelManifests(facts, 'shop-production', 'shop.example.test');
    const clusterRole = `${manifestsYaml(production)}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: shop-node-reader\nrules: []\n`;
    a = await startOpenAiServer({
      key: KEY_A,
      model: MODEL,
      replies: [
        reply('Here is the plan.', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [shop-production-web\n'),
        reply('The same objects, and a ClusterRole so the app can read nodes.', clusterRole),
        reply(SUMMARY_A, manifestsYaml(production)),
      ],
    });
    servers.push(a);

    const shown = await denvJson(cp, ['project', 'planner', 'shop', '--llm-url', a.url, '--model', MODEL, '--key-file', keyFile(KEY_A)]);
    expect(shown.planner).toEqual({ kind: 'llm', url: a.url, model: MODEL });
    const project = (await api.get('/v1/projects/shop')).body;
    expect(project.planner).toEqual({ kind: 'llm', url: a.url, model: MODEL });
    for (const text of [JSON.stringify(shown), JSON.stringify(project), JSON.stringify((await api.get(`/v1/events?subject=project:${project.id}`)).body)]) expect(text).not.toContain(KEY_A);
  }, 30_000);

  it('retries with the problems until the plan is valid; the plan lands for approval and nothing is applied', async () => {
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose: compose('shop.example.test') });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    productionId = res.body.env.id;
    await planned(productionId);

    const plan = await latestPlan(productionId);
    expect(plan).toMatchObject({ planner: 'llm', status: 'ready', summary: SUMMARY_A });
    const docs = (plan.artifact as string).split(/^---$/m).map((d) => parse(d));
    expect(docs.map((d: KubeObject) => `${d.kind}/${d.metadata.name}`)).toEqual(['PersistentVolumeClaim/shop-production-uploads', 'Deployment/shop-production-web', 'Service/shop-production-web', 'Ingress/shop-production-web']);
    expect(plan.artifact).toContain(MODEL_IMAGE);

    // Three calls, each with the bearer key; the 2nd and 3rd carry the earlier replies and their problems.
    expect(a.requests).toHaveLength(3);
    for (const r of a.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(a.chats.map((c) => c.map((m) => m.role))).toEqual([
      ['system', 'user'],
      ['system', 'user', 'assistant', 'user'],
      ['system', 'user', 'assistant', 'user', 'assistant', 'user'],
    ]);
    expect(a.chats[0]![1]!.content).toContain('Environment: shop-production');
    // The environment value never left denv: the endpoint saw its token only; the stored plan has the value.
    for (const r of a.requests) expect(JSON.stringify(r)).not.toContain(SECRET);
    expect(a.chats[0]![1]!.content).toContain(`value: ${SECRET_TOKEN}`);
    const revealed = (await api.get(`/v1/envs/${productionId}/plans?reveal=true`)).body.items[0].artifact as string;
    expect(revealed).toContain(SECRET);
    expect(revealed).not.toContain(SECRET_TOKEN);
    expect(a.chats[1]![3]!.content).toMatch(/^That reply was rejected:\n- the ```yaml block is not valid YAML \(document 1\): /);
    expect(a.chats[2]![3]!.content).toBe(a.chats[1]![3]!.content);
    expect(a.chats[2]![5]!.content).toMatch(/^That reply was rejected:\n- document 5 \(ClusterRole shop-node-reader\): kind ClusterRole is not allowed in a denv plan/);
    expect(writes(kube)).toEqual([]);
  }, 90_000);

  it("approved, the model's plan is applied with the spec's image", async () => {
    expect((await api.post(`/v1/envs/${productionId}/approve`, {})).status).toBe(202);
    await statusIs(productionId, 'running');
    const [deployment] = kube.objects('Deployment') as (KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } })[];
    expect(deployment!.metadata.name).toBe('shop-production-web');
    expect(deployment!.metadata.annotations).toMatchObject({ 'example.test/planned-by': 'llm' });
    expect(deployment!.spec.template.spec.containers.map((c) => c.image)).toEqual([IMAGE]);
    expect((deployment!.spec.template.spec.containers[0] as unknown as { env: { name: string; value: string }[] }).env).toContainEqual({ name: 'SHOP_TOKEN', value: SECRET });
    const applied = writes(kube).map((r) => r.path.split('/').slice(-2).join('/'));
    expect(applied.sort()).toEqual(['deployments/shop-production-web', 'ingresses/shop-production-web', 'persistentvolumeclaims/shop-production-uploads', 'services/shop-production-web']);
  }, 90_000);

  let b: FakeOpenAi;
  let stagingId: string;
  const SUMMARY_B = 'Runs web as one Deployment behind a Service and an Ingress for staging.shop.example.test; the uploads claim stays at 1Gi, as asked.';

  it('a model that never gives a valid plan: 3 calls, the env failed with "use Re-plan to retry", nothing written', async () => {
    const staging = modelManifests(facts, 'shop-staging', 'staging.shop.example.test');
    const otherNamespace = modelManifests(facts, 'shop-staging', 'staging.shop.example.test', (m) => ({ ...m, metadata: { ...m.metadata, namespace: 'kube-system' } }));
    b = await startOpenAiServer({
      key: KEY_B,
      model: MODEL,
      replies: [
        'I would use a Deployment and a Service.',
        reply('A ClusterRole.', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: shop-staging\nrules: []\n'),
        reply('Everything in kube-system.', manifestsYaml(otherNamespace)),
        // The endpoint "fixed": what the re-plan gets.
        reply(SUMMARY_B, manifestsYaml(staging)),
      ],
    });
    servers.push(b);
    const shown = await denvJson(cp, ['project', 'planner', 'shop', '--llm-url', b.url, '--model', MODEL, '--key-file', keyFile(KEY_B)]);
    expect(shown.planner).toEqual({ kind: 'llm', url: b.url, model: MODEL });

    const writesBefore = writes(kube).length;
    const res = await api.post('/v1/projects/shop/deploy', { env: 'staging', compose: compose('staging.shop.example.test') });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    stagingId = res.body.env.id;
    await statusIs(stagingId, 'failed');
    const failed = await env(stagingId);
    // The last try's problems (the first three of them), then the way out.
    expect(failed.last_error).toContain(`planning failed: the LLM planner gave no valid plan in 3 tries: document 1 (PersistentVolumeClaim shop-staging-uploads): metadata.namespace: must be absent or "${facts.namespace}" (the agent's namespace), not "kube-system"`);
    expect(failed.last_error.endsWith('use Re-plan to retry')).toBe(true);
    expect(b.requests).toHaveLength(3);
    for (const r of b.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY_B}`);
    // Its deploy is finished unrun: only the verdict, which says why.
    const dep = await api.finished(res.body.deployment.id);
    expect(dep.status).toBe('failed');
    expect(dep.phases.filter((p) => p.status !== 'skipped').map((p) => p.name)).toEqual(['verdict']);
    expect(dep.phases.at(-1)!.evidence).toMatchObject({ plan_failed: expect.stringMatching(/^the LLM planner gave no valid plan in 3 tries: /) });
    // The failure is final: two whole planner passes later, the endpoint was not called again.
    const passes = async () =>
      parsePrometheusText(await (await fetch(`${cp.url}/metrics`)).text()).samples.find((x) => x.name === 'denv_sweep_duration_seconds_count' && x.labels.sweep === 'planner')?.value ?? 0;
    const seen = await passes();
    await waitFor(async () => (await passes()) >= seen + 2, 30_000, 'two more planner passes');
    expect(b.requests).toHaveLength(3);
    expect((await env(stagingId)).status).toBe('failed');
    expect(writes(kube).length).toBe(writesBefore);
    expect(kube.objects('Deployment').map((d) => (d as KubeObject).metadata.name)).toEqual(['shop-production-web']);
  }, 90_000);

  it('a re-plan with guidance after the endpoint is fixed: the guidance is in the prompt and the plan lands', async () => {
    const res = await api.post(`/v1/envs/${stagingId}/replan`, { guidance: GUIDANCE });
    expect(res.status).toBe(202);
    expect(res.body.env.status).toBe('planning');
    await planned(stagingId);
    expect(b.chats).toHaveLength(4);
    expect(b.chats[3]!.map((m) => m.role)).toEqual(['system', 'user']);
    expect(b.chats[3]![1]!.content).toContain(`## Instructions\n${GUIDANCE}`);
    const plan = await latestPlan(stagingId);
    expect(plan).toMatchObject({ planner: 'llm', status: 'ready', summary: SUMMARY_B });
    expect(plan.artifact).toContain('name: shop-staging-web');
  }, 90_000);

  it('--deterministic clears the planner: the next plan is the deterministic one and the endpoint is not called', async () => {
    const shown = await denvJson(cp, ['project', 'planner', 'shop', '--deterministic']);
    expect(shown.planner).toBeNull();
    expect((await api.get('/v1/projects/shop')).body.planner).toBeNull();
    const calls = b.requests.length;
    expect((await api.post(`/v1/envs/${productionId}/replan`, {})).status).toBe(202);
    await planned(productionId);
    const plan = await latestPlan(productionId);
    expect(plan).toMatchObject({ planner: 'kubernetes', status: 'ready' });
    // Evolved onto the live objects the LLM's plan made: same names.
    expect(plan.artifact).toContain('name: shop-production-web');
    expect(b.requests.length).toBe(calls);
    expect(a.requests).toHaveLength(3);
  }, 90_000);
});
