import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startOpenAiServer, type FakeOpenAi, type ScriptedReply } from '../../../../../test/helpers/openai-server.js';
import { PLAN_KINDS, type ClusterFacts } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec-types.js';
import { planWithLlm } from './llm-planner.js';
import type { LlmPlanInput } from './prompt.js';

const KEY = 'sk-test-0b6f4e19c2a8d357';
const MODEL = 'llama-3.1-70b-instruct';
const FENCE = '```';

const spec: Spec = {
  services: {
    web: {
      image: 'ghcr.io/acme/web:2',
      command: null,
      entrypoint: null,
      environment: {},
      working_dir: null,
      ports: [8080],
      volumes: [],
      health: { kind: 'http', path: '/healthz', port: null, timeout_ms: 1000 },
    },
  },
  volumes: [],
  warm: null,
  target: 'kubernetes',
  approval: null,
  agent: null,
  verifier: null,
};
const facts: ClusterFacts = { version: 'v1.30.4', namespace: 'apps', ingress_classes: [], default_ingress_class: null, cert_manager: false, storage_classes: [], default_storage_class: null };
const input: LlmPlanInput = { spec, envName: 'staging', facts, live: [], instructions: 'Two replicas.', replacesVersion: null };

/** A stand-in for the deterministic planner's validateManifests: allowed kinds and the identifying fields. */
function validate(docs: readonly unknown[]): string[] {
  const problems: string[] = [];
  docs.forEach((d, i) => {
    const o = d as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
    if (typeof o.apiVersion !== 'string') problems.push(`document ${i + 1}: apiVersion is missing`);
    if (typeof o.kind !== 'string' || !(PLAN_KINDS as readonly string[]).includes(o.kind)) problems.push(`document ${i + 1}: kind ${String(o.kind)} is not allowed (allowed: ${PLAN_KINDS.join(', ')})`);
    if (typeof o.metadata?.name !== 'string') problems.push(`document ${i + 1}: metadata.name is missing`);
  });
  return problems;
}

const INVALID_YAML = `Here is the plan.\n\n${FENCE}yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [staging-web\n${FENCE}\n`;
const FORBIDDEN_KIND = [
  'A Deployment, and a ClusterRole so the app can read nodes.',
  '',
  `${FENCE}yaml`,
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata: {name: staging-web}',
  '---',
  'apiVersion: rbac.authorization.k8s.io/v1',
  'kind: ClusterRole',
  'metadata: {name: node-reader}',
  FENCE,
].join('\n');
const VALID = [
  'Runs web (ghcr.io/acme/web:2) as a Deployment with two replicas behind a ClusterIP Service. No Ingress: the cluster has no ingress class.',
  '',
  `${FENCE}yaml`,
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: staging-web',
  '  labels: {denv.dev/env: staging, denv.dev/service: web, app.kubernetes.io/managed-by: denv}',
  'spec:',
  '  replicas: 2',
  '---',
  'apiVersion: v1',
  'kind: Service',
  'metadata:',
  '  name: staging-web',
  '  labels: {denv.dev/env: staging, denv.dev/service: web, app.kubernetes.io/managed-by: denv}',
  'spec:',
  '  ports: [{port: 8080}]',
  FENCE,
].join('\n');

let server: FakeOpenAi | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(replies: readonly ScriptedReply[]): Promise<FakeOpenAi> {
  server = await startOpenAiServer({ key: KEY, model: MODEL, replies });
  return server;
}

describe('planWithLlm', () => {
  it('retries with the problems until the plan is valid: invalid YAML, a forbidden kind, then a good plan', async () => {
    const s = await start([INVALID_YAML, FORBIDDEN_KIND, VALID]);
    const plan = await planWithLlm(input, { endpoint: { url: s.url, key: KEY, model: MODEL }, validate });

    expect(plan.tries).toBe(3);
    expect(plan.summary).toBe('Runs web (ghcr.io/acme/web:2) as a Deployment with two replicas behind a ClusterIP Service. No Ingress: the cluster has no ingress class.');
    expect(plan.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual(['Deployment/staging-web', 'Service/staging-web']);
    expect(parseAllDocuments(plan.artifact).map((d) => d.toJS())).toEqual(plan.manifests);
    expect(plan.artifact).toContain('---\napiVersion: v1\nkind: Service\n');

    expect(s.chats.map((c) => c.map((m) => m.role))).toEqual([
      ['system', 'user'],
      ['system', 'user', 'assistant', 'user'],
      ['system', 'user', 'assistant', 'user', 'assistant', 'user'],
    ]);
    // The same question each time, with every earlier reply and its problems after it.
    expect(s.chats[1]!.slice(0, 2)).toEqual(s.chats[0]);
    expect(s.chats[2]!.slice(0, 4)).toEqual(s.chats[1]);
    expect(s.chats[1]![2]!.content).toBe(INVALID_YAML);
    expect(s.chats[1]![3]!.content).toMatch(/^That reply was rejected:\n- the ```yaml block is not valid YAML \(document 1\): /);
    expect(s.chats[2]![4]!.content).toBe(FORBIDDEN_KIND);
    expect(s.chats[2]![5]!.content).toContain(`- document 2: kind ClusterRole is not allowed (allowed: ${PLAN_KINDS.join(', ')})\n`);
    expect(s.chats[0]![1]!.content).toContain('## Instructions\nTwo replicas.');
  });

  it('gives up after 3 tries, saying why the last one failed', async () => {
    const s = await start([FORBIDDEN_KIND, FORBIDDEN_KIND, FORBIDDEN_KIND, VALID]);
    await expect(planWithLlm(input, { endpoint: { url: s.url, key: KEY, model: MODEL }, validate })).rejects.toThrow(
      `the LLM planner gave no valid plan in 3 tries: document 2: kind ClusterRole is not allowed (allowed: ${PLAN_KINDS.join(', ')})`,
    );
    expect(s.chats).toHaveLength(3);
  });

  it('counts a failing endpoint as a try and reports it as the endpoint failing, without the key', async () => {
    const s = await start([VALID]);
    const wrongKey = 'sk-wrong-93d0a6c1e5f27b48';
    const err = await planWithLlm(input, { endpoint: { url: s.url, key: wrongKey, model: MODEL }, validate }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(`the LLM planner gave no valid plan in 3 tries: the LLM endpoint failed: LLM endpoint ${s.url}: HTTP 401: Incorrect API key provided: [redacted].`);
    expect(err?.message).not.toContain(wrongKey);
    expect(s.requests).toHaveLength(3);
  });

  it('asks the same question again after an endpoint error (there is no reply to correct)', async () => {
    const s = await start([{ status: 503, body: { error: { message: 'The server is overloaded', type: 'server_error' } } }, VALID]);
    const plan = await planWithLlm(input, { endpoint: { url: s.url, key: KEY, model: MODEL }, validate });
    expect(plan.tries).toBe(2);
    expect(s.chats[1]).toEqual(s.chats[0]);
  });

  it('plans in one try when the first reply is valid, and honours maxTries', async () => {
    const s = await start([VALID, INVALID_YAML, INVALID_YAML]);
    const ep = { url: s.url, key: KEY, model: MODEL };
    expect((await planWithLlm(input, { endpoint: ep, validate })).tries).toBe(1);
    await expect(planWithLlm(input, { endpoint: ep, validate, maxTries: 2 })).rejects.toThrow(/^the LLM planner gave no valid plan in 2 tries: the ```yaml block is not valid YAML/);
  });

  it('stops at once when cancelled, without calling the endpoint', async () => {
    let calls = 0;
    const chat = async () => {
      calls++;
      return VALID;
    };
    await expect(planWithLlm(input, { endpoint: { url: 'http://127.0.0.1:9/v1', key: KEY, model: MODEL }, validate, chat, signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
    expect(calls).toBe(0);
  });
});

describe('planWithLlm and environment values', () => {
  const withSecret: LlmPlanInput = { ...input, spec: { ...spec, services: { web: { ...spec.services.web!, environment: { API_KEY: 'sk-live-9f3a77c1e2' } } } } };
  const deployment = (value: string) =>
    [
      'Runs web with its API key.',
      '',
      `${FENCE}yaml`,
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: staging-web}',
      'spec:',
      '  template:',
      '    spec:',
      `      containers: [{name: web, image: ghcr.io/acme/web:2, env: [{name: API_KEY, value: "${value}"}, {name: PORT, value: "8080"}]}]`,
      FENCE,
    ].join('\n');

  it("never sends a value to the endpoint, and the plan carries it where the model put the value's token", async () => {
    const fake = await start([deployment('denv:value:1')]);
    const plan = await planWithLlm(withSecret, { endpoint: { url: fake.url, key: KEY, model: MODEL }, validate });
    expect(JSON.stringify(fake.requests)).not.toContain('sk-live-9f3a77c1e2');
    expect(fake.chats[0]![1]!.content).toContain('value: denv:value:1');
    const env = (plan.manifests[0] as unknown as { spec: { template: { spec: { containers: { env: unknown[] }[] } } } }).spec.template.spec.containers[0]!.env;
    expect(env).toEqual([{ name: 'API_KEY', value: 'sk-live-9f3a77c1e2' }, { name: 'PORT', value: '8080' }]);
    expect(plan.artifact).toContain('sk-live-9f3a77c1e2');
    expect(plan.artifact).not.toContain('denv:value:');
  });

  it('shows the model a reply that altered a token, and takes the corrected one', async () => {
    const fake = await start([deployment('Bearer denv:value:1'), deployment('denv:value:1')]);
    const plan = await planWithLlm(withSecret, { endpoint: { url: fake.url, key: KEY, model: MODEL }, validate });
    expect(plan.tries).toBe(2);
    expect(fake.chats[1]![3]!.content).toBe(
      'That reply was rejected:\n- document 1 (Deployment staging-web).spec.template.spec.containers[0].env[0].value: "Bearer denv:value:1" alters a value denv fills in: copy each denv:value:N token exactly, as the whole value\n\nReply again in the same format (the summary, then one ```yaml block) with the complete, corrected set of manifests.',
    );
  });
});
