/**
 * AWS ECS target, end to end through the control plane: an AWS account added by the API, an env
 * with `x-denv.target: aws_ecs` planned (seed 002's Fargate plan), approved and applied by the
 * control plane with the AWS SDK — against a local server speaking the documented AWS protocols
 * (ECS and CloudWatch Logs JSON 1.1, IAM and EC2 Query, SigV4 checked: test/helpers/aws-api-server.ts),
 * since no AWS account can be used here. Contract-tested, not run against AWS.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { startAwsApiServer, type FakeAws } from '../helpers/aws-api-server.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { denvJson } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const KEYS = { accessKeyId: 'AKIADENVTESTKEY00001', secretAccessKey: 'denv-test-secret-key-0000000000000000' };
const IMAGE_V1 = 'registry.example.test/api:1.0';
const IMAGE_BAD = 'registry.example.test/api:broken';
const compose = (image: string) => ({ services: { api: { image, ports: ['3000'] } }, 'x-denv': { target: 'aws_ecs' } });
const WRITES = /^(Create|Register|Update|Delete|Attach|Authorize|Put|Deregister)/;

describe('aws_ecs target: plan, approve, apply, stop, start, teardown, separate', () => {
  let cp: ControlPlane;
  let api: Api;
  let aws: FakeAws;

  beforeAll(async () => {
    aws = await startAwsApiServer({ ...KEYS, region: 'eu-central-1' });
    const dir = freshDataDir();
    cp = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, liveStatusMs: 500, log: () => {} });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'shop', approval: 'required' })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await cp?.close();
    await aws?.close();
  });

  const env = async (id: string) => (await api.get(`/v1/envs/${id}`)).body;
  const statusIs = (id: string, s: string) => waitFor(async () => ((await env(id)).status === s ? true : undefined), 60_000, `env ${id} to be ${s}`);
  const deployments = async (id: string) => (await api.get(`/v1/deployments?env=${id}`)).body.items as { id: string; kind: string; status: string; phases: { name: string; status: string; evidence: any }[] }[];
  const writes = () => aws.calls.filter((c) => WRITES.test(c.operation) && c.status < 400).map((c) => c.operation);

  it('adds an account, validating the body and never showing the keys', async () => {
    const bad = await api.post('/v1/aws-accounts', { name: 'prod', region: 'mars-1', access_key_id: KEYS.accessKeyId, secret_access_key: KEYS.secretAccessKey });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('region');
    // Through the CLI: the secret from the environment, never an argument.
    const made = await denvJson(cp, ['aws-account', 'add', 'prod', '--region', 'eu-central-1', '--endpoint', aws.url], { AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey });
    expect(made).toMatchObject({ name: 'prod', region: 'eu-central-1', endpoint: aws.url, handover_requested_at: null });
    const listed = JSON.stringify((await api.get('/v1/aws-accounts')).body);
    expect(listed).toContain('"name":"prod"');
    expect(listed).not.toContain(KEYS.secretAccessKey);
    expect(listed).not.toContain(KEYS.accessKeyId);
  });

  let envId: string;
  it('plans Fargate 0.25 vCPU / 512 MB, calls nothing in AWS before approval, then runs with a public IP per task', async () => {
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose: compose(IMAGE_V1) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    envId = res.body.env.id;
    await statusIs(envId, 'awaiting_approval');
    const [plan] = (await api.get(`/v1/envs/${envId}/plans`)).body.items;
    expect(plan.planner).toBe('aws_ecs');
    // Shown as YAML with secret values masked (api/mask.ts).
    const artifact = parse(plan.artifact);
    expect(artifact.taskDefinition).toMatchObject({ cpu: '256', memory: '512', networkMode: 'awsvpc', requiresCompatibilities: ['FARGATE'] });
    expect(artifact.taskDefinition.containerDefinitions[0]).toMatchObject({ image: IMAGE_V1, portMappings: [expect.objectContaining({ containerPort: 3000 })], logConfiguration: expect.objectContaining({ logDriver: 'awslogs' }) });
    expect(aws.calls).toEqual([]);

    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    await statusIs(envId, 'running');
    const [dep] = await deployments(envId);
    expect(dep!.status).toBe('succeeded');
    expect(dep!.phases.map((p) => [p.name, p.status])).toEqual([
      ['resolve', 'ok'], ['place', 'ok'], ['provision', 'skipped'], ['join', 'skipped'], ['prepare', 'ok'], ['start', 'ok'],
      ['health', 'ok'], ['warm', 'skipped'], ['snapshot', 'skipped'], ['ingress', 'ok'], ['verdict', 'ok'],
    ]);
    expect(writes()).toEqual(expect.arrayContaining(['CreateCluster', 'CreateRole', 'AttachRolePolicy', 'CreateLogGroup', 'CreateSecurityGroup', 'RegisterTaskDefinition', 'CreateService']));
    const endpoints = (await env(envId)).endpoints as { service: string; url: string }[];
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]!.url).toMatch(/^http:\/\/203\.0\.113\.\d+:3000$/);
    // Live status is assembled from the service and its tasks.
    await waitFor(async () => {
      const s = (await api.get(`/v1/envs/${envId}/status`)).body;
      expect(s.actions).toEqual(['replan', 'stop', 'teardown', 'separate']);
      const w = s.live_status?.workloads?.[0];
      return w && w.runtime === 'aws_ecs' && w.desired === 1 && w.ready === 1 ? true : undefined;
    }, 20_000, 'live status from ECS');
  });

  it('shows the service\'s CloudWatch log lines, each once', async () => {
    const group = [...aws.state.logGroups.keys()].find((g) => g.startsWith('/denv/shop-production-'))!;
    aws.putLogs(group, ['listening on 3000', 'GET / 200']);
    for (let i = 0; i < 2; i++) {
      const res = await api.get(`/v1/envs/${envId}/logs?lines=50`);
      expect(res.body.error).toBeNull();
      expect(res.body.items.map((l: { text: string }) => l.text)).toEqual(['listening on 3000', 'GET / 200']);
    }
  });

  it('a failing upgrade rolls back to the previous task definition', async () => {
    aws.failImage(IMAGE_BAD, 'CannotPullContainerError: pull image manifest has been retried 5 time(s)');
    const res = await api.post('/v1/projects/shop/deploy', { env: 'production', compose: compose(IMAGE_BAD) });
    await statusIs(envId, 'awaiting_approval');
    expect((await api.post(`/v1/envs/${envId}/approve`, {})).status).toBe(202);
    const done = await waitFor(async () => (await deployments(envId)).find((d) => d.id === res.body.deployment.id && !['pending', 'running'].includes(d.status)), 90_000, 'the upgrade to end');
    expect(done.status, JSON.stringify(done.phases.filter((p) => p.status === 'failed' || p.name === 'verdict'))).toBe('rolled_back');
    expect(JSON.stringify(done.phases.find((p) => p.name === 'start')!.evidence)).toContain('CannotPullContainerError');
    const service = [...aws.state.services.values()][0]!;
    const running = [...aws.state.tasks.values()].filter((t) => t.lastStatus === 'RUNNING');
    expect(running.map((t) => t.image)).toEqual([IMAGE_V1]);
    expect(service.desiredCount).toBe(1);
    await statusIs(envId, 'running');
  }, 120_000);

  it('stop sets desiredCount 0; start applies the plan again', async () => {
    expect((await api.post(`/v1/envs/${envId}/stop`, {})).status).toBe(202);
    await statusIs(envId, 'stopped');
    expect([...aws.state.services.values()][0]!.desiredCount).toBe(0);
    expect((await api.post(`/v1/envs/${envId}/start`, {})).status).toBe(202);
    await statusIs(envId, 'running');
    expect([...aws.state.services.values()][0]!.desiredCount).toBe(1);
  }, 90_000);

  it('refuses operations that need datasets on a host, writing nothing', async () => {
    const before = (await deployments(envId)).length;
    for (const url of [`/v1/envs/${envId}/snapshot`, `/v1/envs/${envId}/fork`]) {
      const res = await api.post(url, {});
      expect(res.status, url).toBe(409);
      expect(res.body.error.message).toContain('AWS ECS');
    }
    expect((await deployments(envId)).length).toBe(before);
  });

  it('teardown deletes the ECS service and nothing else', async () => {
    const before = aws.calls.length;
    expect((await api.post(`/v1/envs/${envId}/teardown`, {})).status).toBe(202);
    await statusIs(envId, 'torn_down');
    const deletes = aws.calls.slice(before).filter((c) => c.operation.startsWith('Delete') || c.operation.startsWith('Deregister') || c.operation.startsWith('Detach'));
    expect(deletes.map((c) => c.operation)).toEqual(['DeleteService']);
    expect(aws.state.clusters.size).toBe(1);
    expect(aws.state.roles.size).toBe(1);
    expect(aws.state.logGroups.size).toBe(1);
  }, 60_000);

  it('a failed first deploy deletes the service it made: deleting its record then leaves nothing running', async () => {
    const image = 'registry.example.test/api:never-pulls';
    aws.failImage(image, 'CannotPullContainerError: manifest unknown');
    expect((await api.post('/v1/projects', { name: 'oops' })).status).toBe(201);
    const res = await api.post('/v1/projects/oops/deploy', { env: 'prod', compose: compose(image) });
    const id = res.body.env.id as string;
    const dep = await api.finished(res.body.deployment.id, 90_000);
    expect(dep.status).toBe('failed');
    expect(dep.phases.find((p) => p.name === 'prepare')!.status).toBe('ok');
    const service = (dep.phases.find((p) => p.name === 'prepare')!.evidence as { service: string }).service.split('/').at(-1)!;
    expect(dep.phases.find((p) => p.name === 'verdict')!.evidence).toMatchObject({ reverted: 'no previous version', removed: [service] });
    expect([...aws.state.services.values()].find((s) => s.serviceName === service)?.status).toBe('INACTIVE');
    // A stop now has nothing to scale; the record deletes with nothing left running.
    expect((await api.post(`/v1/envs/${id}/stop`, {})).status).toBe(202);
    await statusIs(id, 'stopped');
    expect((await deployments(id)).find((d) => d.kind === 'stop')!.phases.find((p) => p.name === 'stop')).toMatchObject({ status: 'skipped' });
    expect((await api.post(`/v1/envs/${id}/teardown`, {})).status).toBe(202);
    await statusIs(id, 'torn_down');
    expect((await api.req('DELETE', `/v1/envs/${id}/record`)).status).toBe(200);
    expect([...aws.state.services.values()].filter((s) => s.serviceName === service && s.status === 'ACTIVE')).toEqual([]);
  }, 120_000);

  it('separate flags the account for hand-over and touches nothing in AWS', async () => {
    const res = await api.post('/v1/projects/shop/deploy', { env: 'staging', compose: compose(IMAGE_V1), target: { aws_account: 'prod' } });
    const id = res.body.env.id as string;
    await statusIs(id, 'awaiting_approval');
    await api.post(`/v1/envs/${id}/approve`, {});
    await statusIs(id, 'running');
    const writesBefore = writes().length;
    expect((await api.post(`/v1/envs/${id}/separate`, {})).status).toBe(202);
    await waitFor(async () => ((await deployments(id)).find((d) => d.kind === 'separate')?.status === 'succeeded' ? true : undefined), 30_000, 'separate to finish');
    expect(writes().length).toBe(writesBefore);
    const [account] = (await api.get('/v1/aws-accounts')).body.items;
    expect(account.handover_requested_at).toEqual(expect.any(String));
    expect([...aws.state.services.values()].find((s) => s.serviceName.includes('staging'))!.desiredCount).toBe(1);
  }, 90_000);
});
