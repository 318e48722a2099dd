/**
 * Contract tests of the ECS executor against the local AWS API server (test/helpers/aws-api-server.ts),
 * which speaks the AWS protocols through the real SDK clients, verifies SigV4 and checks what denv sends.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { startAwsApiServer, type AwsApiServerOptions, type FakeAws } from '../../../../test/helpers/aws-api-server.js';
import type { Spec } from '../../../contracts/spec-types.js';
import { DescribeVpcsCommand } from '@aws-sdk/client-ec2';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { CreateSecretCommand, DescribeSecretCommand, GetSecretValueCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { AwsCallError } from './aws-call.js';
import { closeAwsClients, makeAwsClients } from './aws-clients.js';
import { planEcs, type EcsPlan } from './ecs-plan.js';
import { EcsTarget } from './ecs-target.js';

const KEYS = { accessKeyId: 'AKIDDENVTEST', secretAccessKey: 'denv-test-secret' };
const REGION = 'eu-central-1';

const spec = (image: string): Spec => ({
  services: { web: { image, command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 } } },
  volumes: [], warm: null, target: 'aws_ecs', approval: null, agent: null, verifier: null,
});
const plan = (image = 'ghcr.io/acme/web:1', replacesVersion: number | null = null): EcsPlan =>
  planEcs({ spec: spec(image), envName: 'prod', instructions: 'listens on 3000', replacesVersion, account: { region: REGION } });

let aws: FakeAws | null = null;
let targets: EcsTarget[] = [];
afterEach(async () => {
  for (const t of targets) t.close();
  targets = [];
  await aws?.close();
  aws = null;
});

async function setup(o: Partial<AwsApiServerOptions> = {}, secret = KEYS.secretAccessKey) {
  aws = await startAwsApiServer({ ...KEYS, region: REGION, ...o });
  const target = new EcsTarget({ ...KEYS, secretAccessKey: secret, region: REGION, endpoint: aws.url, ...(o.sessionToken ? { sessionToken: o.sessionToken } : {}) });
  targets.push(target);
  return { fake: aws, target };
}
const ops = (fake: FakeAws, from = 0) => fake.calls.slice(from).map((c) => `${c.service}:${c.operation}${c.error ? ` → ${c.error}` : ''}`);

describe('EcsTarget against the local AWS API server', () => {
  test('the first apply makes the cluster, role, log group, security group, task definition and service; they run', async () => {
    const { fake, target } = await setup();
    const p = plan();
    const out = await target.apply(p);
    expect(out.created).toEqual([
      'cluster denv',
      'role denv-ecs-execution',
      'log group /denv/prod',
      expect.stringMatching(/^security group denv-prod \(sg-[0-9a-f]+\)$/),
      'ingress tcp/3000',
      'task definition denv-prod:1',
      'service denv-prod',
    ]);
    expect(ops(fake)).toEqual([
      'ecs:DescribeClusters',
      'ecs:CreateCluster',
      'iam:GetRole → NoSuchEntity',
      'iam:CreateRole',
      'iam:AttachRolePolicy',
      'logs:CreateLogGroup',
      'ec2:DescribeVpcs',
      'ec2:DescribeSubnets',
      'ec2:DescribeSecurityGroups',
      'ec2:CreateSecurityGroup',
      'ec2:AuthorizeSecurityGroupIngress',
      'ecs:RegisterTaskDefinition',
      'ecs:DescribeServices',
      'ecs:CreateService',
    ]);
    // What was sent, as the server parsed it.
    const call = (op: string) => fake.calls.find((c) => c.operation === op)!.input;
    expect(JSON.parse(call('CreateRole').AssumeRolePolicyDocument)).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    });
    expect(call('AttachRolePolicy')).toEqual({ RoleName: 'denv-ecs-execution', PolicyArn: 'arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy' });
    expect(call('DescribeVpcs')).toEqual({ Filter: [{ Name: 'isDefault', Value: ['true'] }] });
    expect(call('AuthorizeSecurityGroupIngress').IpPermissions).toEqual([{ IpProtocol: 'tcp', FromPort: '3000', ToPort: '3000', IpRanges: [{ CidrIp: '0.0.0.0/0', Description: 'denv: the app port' }] }]);
    const role = fake.state.roles.get('denv-ecs-execution')!;
    expect(call('RegisterTaskDefinition')).toEqual({ ...p.taskDefinition, executionRoleArn: role.Arn });
    expect(call('CreateService')).toMatchObject({
      cluster: 'denv',
      serviceName: 'denv-prod',
      taskDefinition: out.taskDefinitionArn,
      desiredCount: 1,
      launchType: 'FARGATE',
      networkConfiguration: { awsvpcConfiguration: { subnets: fake.state.subnets.map((s) => s.subnetId).sort(), assignPublicIp: 'ENABLED' } },
    });
    expect(out.taskDefinitionArn).toBe(`arn:aws:ecs:${REGION}:${fake.accountId}:task-definition/denv-prod:1`);
    expect(out.serviceArn).toBe(`arn:aws:ecs:${REGION}:${fake.accountId}:service/denv/denv-prod`);
    expect(await target.waitStable(p, { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: out.taskDefinitionArn })).toEqual({ outcome: 'stable', polls: 1, runningCount: 1 });
  });

  test('a second apply registers revision 2 and updates the service; nothing is made twice', async () => {
    const { fake, target } = await setup();
    await target.apply(plan());
    const mark = fake.calls.length;
    const again = await target.apply(plan('ghcr.io/acme/web:2', 1));
    expect(again.created).toEqual(['task definition denv-prod:2']);
    expect(again.taskDefinitionArn).toMatch(/:task-definition\/denv-prod:2$/);
    expect(ops(fake, mark)).toEqual([
      'ecs:DescribeClusters',
      'iam:GetRole',
      'iam:AttachRolePolicy',
      'logs:CreateLogGroup → ResourceAlreadyExistsException',
      'ec2:DescribeVpcs',
      'ec2:DescribeSubnets',
      'ec2:DescribeSecurityGroups',
      'ecs:RegisterTaskDefinition',
      'ecs:DescribeServices',
      'ecs:UpdateService',
    ]);
    expect(fake.calls.filter((c) => c.operation === 'CreateService')).toHaveLength(1);
    expect(fake.calls.at(-1)!.input).toMatchObject({ service: 'denv-prod', taskDefinition: again.taskDefinitionArn, desiredCount: 1 });
    expect(await target.waitStable(plan(), { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: again.taskDefinitionArn })).toMatchObject({ outcome: 'stable' });
    const status = await target.liveStatus(plan());
    expect(status.workloads[0]).toMatchObject({ desired: 1, ready: 1, images: ['ghcr.io/acme/web:2'] });
  });

  test('an image given to apply replaces the plan\'s', async () => {
    const { fake, target } = await setup();
    await target.apply(plan(), { image: 'registry.example.com/acme/web@sha256:' + 'a'.repeat(64) });
    expect(fake.calls.find((c) => c.operation === 'RegisterTaskDefinition')!.input.containerDefinitions[0].image).toBe('registry.example.com/acme/web@sha256:' + 'a'.repeat(64));
  });

  test('what exists is reused and mended: a role without its policy gets it; a new port gets its rule', async () => {
    const { fake, target } = await setup();
    fake.state.roles.set('denv-ecs-execution', {
      RoleName: 'denv-ecs-execution', RoleId: 'AROAEXAMPLE', Arn: `arn:aws:iam::${fake.accountId}:role/denv-ecs-execution`, Path: '/',
      AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' }, Action: 'sts:AssumeRole' }] }),
      CreateDate: new Date(), policies: new Set(), inline: new Map(),
    });
    const first = await target.apply(plan());
    expect(first.created).not.toContain('role denv-ecs-execution');
    expect([...fake.state.roles.get('denv-ecs-execution')!.policies]).toEqual(['arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy']);
    expect([...fake.state.tasks.values()].map((t) => t.lastStatus)).toEqual(['RUNNING']);

    const moved = planEcs({ spec: spec('ghcr.io/acme/web:1'), envName: 'prod', instructions: 'now on port 4000', replacesVersion: 1, account: { region: REGION } });
    const again = await target.apply(moved);
    expect(again.created).toEqual(['ingress tcp/4000', 'task definition denv-prod:2']);
    expect([...fake.state.securityGroups.values()][0]!.ingress.map((r) => r.from)).toEqual([3000, 4000]);
  });

  test('liveStatus: the service as a workload, its tasks as pods, an endpoint per task public IP', async () => {
    const { fake, target } = await setup();
    const p = plan();
    await target.apply(p);
    const status = await target.liveStatus(p);
    const tasks = [...fake.state.tasks.values()].filter((t) => t.lastStatus === 'RUNNING');
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.eni!.publicIp).toMatch(/^203\.0\.113\.\d+$/);
    expect(status.endpoints).toEqual([`http://${tasks[0]!.eni!.publicIp}:3000`]);
    expect(status.workloads).toEqual([
      {
        name: 'denv-prod',
        service: 'web',
        desired: 1,
        ready: 1,
        images: ['ghcr.io/acme/web:1'],
        pods: [{ name: tasks[0]!.taskArn.split('/').pop(), phase: 'RUNNING', ready: true, restarts: 0, reason: null }],
      },
    ]);
    expect(status.rollout).toEqual({ state: 'COMPLETED', reason: 'ECS deployment completed.', failedTasks: 0 });
    expect(ops(fake).slice(-5)).toEqual(['ecs:DescribeServices', 'ecs:ListTasks', 'ecs:ListTasks', 'ecs:DescribeTasks', 'ec2:DescribeNetworkInterfaces']);
  });

  test('stop sets desiredCount 0 and keeps the service; start applies again', async () => {
    const { fake, target } = await setup();
    const p = plan();
    await target.apply(p);
    const mark = fake.calls.length;
    expect(await target.stop(p)).toEqual({ existed: true });
    expect(fake.calls.slice(mark).map((c) => [c.operation, c.input])).toEqual([['UpdateService', { cluster: 'denv', service: 'denv-prod', desiredCount: 0 }]]);
    expect(await target.waitStable(p, { timeoutMs: 5000, intervalMs: 10 })).toMatchObject({ outcome: 'stable', runningCount: 0 });
    const stopped = await target.liveStatus(p);
    expect(stopped.endpoints).toEqual([]);
    expect(stopped.workloads[0]).toMatchObject({ desired: 0, ready: 0, pods: [] }); // scaled in on purpose: not shown
    expect(fake.state.services.get('denv/denv-prod')!.status).toBe('ACTIVE');

    const started = await target.start(p);
    expect(started.created).toEqual(['task definition denv-prod:2']);
    expect(await target.waitStable(p, { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: started.taskDefinitionArn })).toMatchObject({ outcome: 'stable', runningCount: 1 });
  });

  test('teardown deletes the service and nothing else; again, it is already gone', async () => {
    const { fake, target } = await setup();
    const p = plan();
    await target.apply(p);
    const mark = fake.calls.length;
    expect(await target.teardown(p)).toEqual({ existed: true });
    expect(fake.calls.slice(mark).map((c) => [c.operation, c.input])).toEqual([['DeleteService', { cluster: 'denv', service: 'denv-prod', force: true }]]);
    const deletes = fake.calls.filter((c) => /^(Delete|Deregister|Revoke|Detach)/.test(c.operation)).map((c) => c.operation);
    expect(deletes).toEqual(['DeleteService']);
    for (const op of ['DeleteCluster', 'DeleteRole', 'DeleteLogGroup', 'DeleteSecurityGroup']) expect(fake.operations().some((o) => o.endsWith(`:${op}`))).toBe(false);
    // The scaffolding stays for the next deployment.
    expect(fake.state.clusters.get('denv')?.status).toBe('ACTIVE');
    expect(fake.state.roles.has('denv-ecs-execution')).toBe(true);
    expect(fake.state.logGroups.has('/denv/prod')).toBe(true);
    expect([...fake.state.securityGroups.values()].map((g) => g.groupName)).toEqual(['denv-prod']);
    expect([...fake.state.tasks.values()].every((t) => t.lastStatus === 'STOPPED')).toBe(true);
    expect(await target.liveStatus(p)).toEqual({ workloads: [], endpoints: [], rollout: null });

    expect(await target.teardown(p)).toEqual({ existed: false });
    expect(await target.stop(p)).toEqual({ existed: false });
    // A later deploy makes the service again, and only it.
    const back = await target.apply(p);
    expect(back.created).toEqual(['task definition denv-prod:2', 'service denv-prod']);
  });

  test('a failing image: the task STOPPED with its reason, the deployment failed, the old version keeps serving', async () => {
    const { fake, target } = await setup();
    const first = await target.apply(plan());
    await target.waitStable(plan(), { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: first.taskDefinitionArn });
    const before = (await target.liveStatus(plan())).endpoints;
    const reason = 'CannotPullContainerError: pull image manifest has been retried 5 time(s): ghcr.io/acme/web:broken: not found';
    fake.failImage('ghcr.io/acme/web:broken', reason);
    const bad = await target.apply(plan('ghcr.io/acme/web:broken', 1));
    expect(await target.waitStable(plan(), { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: bad.taskDefinitionArn })).toEqual({
      outcome: 'failed',
      polls: 1,
      reason: 'ECS deployment circuit breaker: tasks failed to start.',
    });
    const status = await target.liveStatus(plan());
    const pods = status.workloads[0]!.pods;
    expect(pods.find((p) => p.phase === 'STOPPED')).toMatchObject({ ready: false, reason });
    expect(pods.filter((p) => p.phase === 'RUNNING')).toHaveLength(1);
    expect(status.endpoints).toEqual(before);
    expect(status.rollout).toEqual({ state: 'FAILED', reason: 'ECS deployment circuit breaker: tasks failed to start.', failedTasks: 1 });
  });

  test('waitStable polls until the tasks run; it times out with what it saw', async () => {
    const { fake, target } = await setup({ startPolls: 2 });
    const p = plan();
    const out = await target.apply(p);
    expect(await target.waitStable(p, { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: out.taskDefinitionArn })).toEqual({ outcome: 'stable', polls: 3, runningCount: 1 });
    expect(fake.calls.filter((c) => c.operation === 'DescribeServices').length).toBeGreaterThanOrEqual(3);

    const slow = await target.apply(plan('ghcr.io/acme/web:3', 1));
    const timedOut = await target.waitStable(p, { timeoutMs: 0, taskDefinitionArn: slow.taskDefinitionArn });
    expect(timedOut).toEqual({ outcome: 'timed_out', polls: 1, detail: '0/1 running, 1 pending, 2 deployment(s); last event: (service denv-prod) has reached a steady state.' });
    const aborted = new AbortController();
    aborted.abort();
    await expect(target.waitStable(p, { timeoutMs: 5000, signal: aborted.signal })).rejects.toThrow();
  });

  test('logs: the last lines of the group, oldest first, at most 200', async () => {
    const { fake, target } = await setup();
    const p = plan();
    expect(await target.logs(p, 50)).toEqual([]); // no group yet
    await target.apply(p);
    const lines = Array.from({ length: 250 }, (_, i) => `line ${i + 1}`);
    fake.putLogs('/denv/prod', lines);
    const got = await target.logs(p, 1000);
    expect(got).toHaveLength(200);
    expect(got[0]!.text).toBe('line 51');
    expect(got.at(-1)!.text).toBe('line 250');
    const task = [...fake.state.tasks.values()][0]!;
    expect(got[0]!.stream).toBe(`web/web/${task.taskArn.split('/').pop()}`);
    expect((await target.logs(p, 3)).map((l) => l.text)).toEqual(['line 248', 'line 249', 'line 250']);
    expect(fake.calls.filter((c) => c.operation === 'GetLogEvents').at(-1)!.input).toMatchObject({ logGroupName: '/denv/prod', startFromHead: false, limit: 3 });
  });

  test('a wrong secret key: the server refuses it, and the error says which call failed', async () => {
    const { fake, target } = await setup({}, 'not-the-secret');
    const err = await target.apply(plan()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCallError);
    expect((err as AwsCallError).call).toBe('ecs:DescribeClusters');
    expect((err as AwsCallError).httpStatus).toBe(403);
    expect((err as Error).message).toMatch(/^ecs:DescribeClusters: InvalidSignatureException: The request signature we calculated does not match/);
    expect(ops(fake)).toEqual(['ecs:DescribeClusters → InvalidSignatureException']);
    expect(fake.state.clusters.size).toBe(0);
  });

  test('IAM and EC2 (Query protocols) refuse a wrong key or secret with their own codes', async () => {
    const { fake } = await setup();
    const names = async (creds: { accessKeyId: string; secretAccessKey: string }) => {
      const c = makeAwsClients({ ...creds, region: REGION, endpoint: fake.url, maxAttempts: 1 });
      try {
        const iam = await c.iam.send(new GetRoleCommand({ RoleName: 'x' })).catch((e: Error) => e.name);
        const ec2 = await c.ec2.send(new DescribeVpcsCommand({})).catch((e: Error) => e.name);
        return [iam, ec2];
      } finally {
        closeAwsClients(c);
      }
    };
    expect(await names({ accessKeyId: 'AKIDSOMEONEELSE', secretAccessKey: KEYS.secretAccessKey })).toEqual(['InvalidClientTokenId', 'AuthFailure']);
    expect(await names({ ...KEYS, secretAccessKey: 'wrong' })).toEqual(['SignatureDoesNotMatch', 'AuthFailure']);
    expect(fake.calls.map((c) => c.status)).toEqual([403, 403, 403, 403]);
  });

  test('session credentials: the token must be sent and signed', async () => {
    const { target } = await setup({ sessionToken: 'FwoGZXIvYXdzEXAMPLE' });
    await expect(target.apply(plan())).resolves.toMatchObject({ created: expect.arrayContaining(['service denv-prod']) });
    const without = new EcsTarget({ ...KEYS, region: REGION, endpoint: aws!.url });
    targets.push(without);
    await expect(without.liveStatus(plan())).rejects.toThrow(/^ecs:DescribeServices: UnrecognizedClientException: /);
  });

  test('an account without a default VPC: apply says so', async () => {
    const { target } = await setup({ defaultVpc: false });
    await expect(target.apply(plan())).rejects.toThrow(/^ec2:DescribeVpcs: the account has no default VPC in eu-central-1/);
  });

  test('a plan for another region is refused before any call', async () => {
    const { fake, target } = await setup();
    const other = planEcs({ spec: spec('a/web:1'), envName: 'prod', instructions: '', replacesVersion: null, account: { region: 'us-east-1' } });
    await expect(target.apply(other)).rejects.toThrow('the plan is for region us-east-1, the target\'s credentials for eu-central-1');
    expect(fake.calls).toEqual([]);
  });
});

describe('EcsTarget: the registry-pull secret (seed 002), against a registry the server keeps private', () => {
  const IMAGE = 'ghcr.io/acme/web:1';
  const LOGIN = { server: 'ghcr.io', username: 'octocat', password: 'ghp_first-password-0001' };
  const SECRET = 'denv/registry/shop/ghcr.io';
  const POLICY = 'denv-pull-shop@ghcr.io';
  const pulling = (image = IMAGE, replacesVersion: number | null = null) =>
    planEcs({ spec: spec(image), envName: 'prod', instructions: 'listens on 3000', replacesVersion, account: { region: REGION }, registry: { project: 'shop', server: 'ghcr.io' } });
  async function privateSetup() {
    const s = await setup();
    s.fake.privateRegistry('ghcr.io', { username: LOGIN.username, password: LOGIN.password });
    return s;
  }
  const current = (fake: FakeAws) => JSON.parse(fake.state.secrets.get(SECRET)!.versions.at(-1)!.value);
  const stable = (target: EcsTarget, p: EcsPlan, arn: string) => target.waitStable(p, { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: arn });

  test('the first apply makes the secret and the role policy, and registers the container with the secret\'s ARN; the task pulls and runs', async () => {
    const { fake, target } = await privateSetup();
    const p = pulling();
    const out = await target.apply(p, { registryCredentials: LOGIN });
    expect(out.created).toEqual([
      'cluster denv',
      'role denv-ecs-execution',
      `secret ${SECRET}`,
      `role policy denv-ecs-execution/${POLICY}`,
      'log group /denv/prod',
      expect.stringMatching(/^security group denv-prod \(sg-[0-9a-f]+\)$/),
      'ingress tcp/3000',
      'task definition denv-prod:1',
      'service denv-prod',
    ]);
    expect(ops(fake).slice(4, 10)).toEqual([
      'iam:AttachRolePolicy',
      'secretsmanager:GetSecretValue → ResourceNotFoundException',
      'secretsmanager:CreateSecret',
      'iam:GetRolePolicy → NoSuchEntity',
      'iam:PutRolePolicy',
      'logs:CreateLogGroup',
    ]);
    const secret = fake.state.secrets.get(SECRET)!;
    expect(secret.arn).toMatch(new RegExp(`^arn:aws:secretsmanager:${REGION}:${fake.accountId}:secret:denv/registry/shop/ghcr\\.io-[A-Za-z0-9]{6}$`));
    expect(current(fake)).toEqual({ username: LOGIN.username, password: LOGIN.password });
    expect(secret.tags).toEqual([{ Key: 'denv:managed-by', Value: 'denv' }]);
    expect(JSON.parse(fake.state.roles.get('denv-ecs-execution')!.inline.get(POLICY)!)).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secret.arn }],
    });
    const registered = fake.calls.find((c) => c.operation === 'RegisterTaskDefinition')!.input;
    expect(registered.containerDefinitions[0].repositoryCredentials).toEqual({ credentialsParameter: secret.arn });
    // The login travels only in the Secrets Manager call that writes it.
    const carrying = fake.calls.filter((c) => JSON.stringify(c.input).includes(LOGIN.password)).map((c) => c.operation);
    expect(carrying).toEqual(['CreateSecret']);
    expect(await stable(target, p, out.taskDefinitionArn)).toEqual({ outcome: 'stable', polls: 1, runningCount: 1 });
  });

  test('a second apply with the same login writes nothing new for it; a changed login is put as a new value, the policy left as it is', async () => {
    const { fake, target } = await privateSetup();
    await target.apply(pulling(), { registryCredentials: LOGIN });
    const mark = fake.calls.length;
    const again = await target.apply(pulling(IMAGE, 1), { registryCredentials: LOGIN });
    expect(again.created).toEqual(['task definition denv-prod:2']);
    expect(ops(fake, mark).filter((o) => /^(secretsmanager|iam):/.test(o))).toEqual(['iam:GetRole', 'iam:AttachRolePolicy', 'secretsmanager:GetSecretValue', 'iam:GetRolePolicy']);
    expect(fake.state.secrets.get(SECRET)!.versions).toHaveLength(1);

    // The registry's password is rotated: the running task keeps running; the new login is written once.
    const rotated = { ...LOGIN, password: 'ghp_second-password-0002' };
    fake.privateRegistry('ghcr.io', { username: rotated.username, password: rotated.password });
    const mark2 = fake.calls.length;
    const changed = await target.apply(pulling(IMAGE, 2), { registryCredentials: rotated });
    expect(changed.created).toEqual([`secret value ${SECRET}`, 'task definition denv-prod:3']);
    expect(ops(fake, mark2).filter((o) => o.startsWith('secretsmanager:'))).toEqual(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']);
    expect(fake.calls.slice(mark2).some((c) => c.operation === 'PutRolePolicy')).toBe(false);
    expect(fake.state.secrets.get(SECRET)!.versions).toHaveLength(2);
    expect(current(fake)).toEqual({ username: rotated.username, password: rotated.password });
    expect(await stable(target, pulling(), changed.taskDefinitionArn)).toMatchObject({ outcome: 'stable', runningCount: 1 });
  });

  test('a private image without the login: the task stops with CannotPullContainerError, and the deployment fails', async () => {
    const { fake, target } = await privateSetup();
    const p = plan(IMAGE); // the project has no registry login: nothing pulls with one
    expect(p.pullSecret).toBeUndefined();
    const out = await target.apply(p);
    expect(fake.state.secrets.size).toBe(0);
    expect(fake.calls.find((c) => c.operation === 'RegisterTaskDefinition')!.input.containerDefinitions[0]).not.toHaveProperty('repositoryCredentials');
    expect(await stable(target, p, out.taskDefinitionArn)).toEqual({ outcome: 'failed', polls: 1, reason: 'ECS deployment circuit breaker: tasks failed to start.' });
    const [pod] = (await target.liveStatus(p)).workloads[0]!.pods;
    expect(pod).toMatchObject({ phase: 'STOPPED', ready: false });
    expect(pod!.reason).toMatch(/^CannotPullContainerError: pull image manifest has been retried 5 time\(s\): failed to resolve ref ghcr\.io\/acme\/web:1: failed to authorize: .*401 Unauthorized$/);
  });

  test('the server checks what the task pulls with: a role without the policy, and a secret holding an old login, stop the replacement task', async () => {
    const { fake, target } = await privateSetup();
    const p = pulling();
    const out = await target.apply(p, { registryCredentials: LOGIN });
    await stable(target, p, out.taskDefinitionArn);
    const secretArn = fake.state.secrets.get(SECRET)!.arn;

    fake.state.roles.get('denv-ecs-execution')!.inline.delete(POLICY);
    expect(fake.stopTasks(IMAGE, 'Essential container in task exited')).toBe(1);
    expect(await stable(target, p, out.taskDefinitionArn)).toMatchObject({ outcome: 'failed' });
    const denied = (await target.liveStatus(p)).workloads[0]!.pods.map((x) => x.reason);
    expect(denied).toContain(
      `ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve secret from asm: service call has been retried 1 time(s): AccessDeniedException: User: arn:aws:sts::${fake.accountId}:assumed-role/denv-ecs-execution/ecs-task is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secretArn} because no identity-based policy allows the secretsmanager:GetSecretValue action`,
    );

    // Apply mends the policy; the registry then takes another password than the secret holds.
    const mended = await target.apply(pulling(IMAGE, 1), { registryCredentials: LOGIN });
    expect(mended.created).toEqual([`role policy denv-ecs-execution/${POLICY}`, 'task definition denv-prod:2']);
    expect(await stable(target, p, mended.taskDefinitionArn)).toMatchObject({ outcome: 'stable' });
    fake.privateRegistry('ghcr.io', { username: LOGIN.username, password: 'changed-at-the-registry' });
    fake.stopTasks(IMAGE, 'Essential container in task exited');
    expect(await stable(target, p, mended.taskDefinitionArn)).toMatchObject({ outcome: 'failed' });
    expect((await target.liveStatus(p)).workloads[0]!.pods.map((x) => x.reason)).toContainEqual(expect.stringMatching(/^CannotPullContainerError: .*failed to fetch oauth token: .*401 Unauthorized$/));
  });

  test('a plan that pulls with a login is refused before any call when apply is given none, or one for another registry', async () => {
    const { fake, target } = await privateSetup();
    await expect(target.apply(pulling())).rejects.toThrow("the plan pulls the image from ghcr.io with the project's registry login, and apply was given none");
    await expect(target.apply(pulling(), { registryCredentials: { ...LOGIN, server: 'registry.example.com' } })).rejects.toThrow('the plan pulls the image from ghcr.io, and apply was given a registry login for registry.example.com');
    expect(fake.calls).toEqual([]);
  });

  test('Secrets Manager (JSON 1.1, SigV4 scoped to secretsmanager) answers with its documented errors', async () => {
    const { fake } = await setup();
    const c = makeAwsClients({ ...KEYS, region: REGION, endpoint: fake.url, maxAttempts: 1 });
    try {
      const name = async (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.name);
      expect(await name(c.secrets.send(new GetSecretValueCommand({ SecretId: 'denv/none' })))).toBe('ResourceNotFoundException');
      const made = await c.secrets.send(new CreateSecretCommand({ Name: 'denv/x', SecretString: '{"username":"u","password":"p"}', Description: 'd' }));
      expect(await name(c.secrets.send(new CreateSecretCommand({ Name: 'denv/x', SecretString: '{}' })))).toBe('ResourceExistsException');
      expect(await name(c.secrets.send(new CreateSecretCommand({ Name: 'denv x', SecretString: '{}' })))).toBe('InvalidParameterException');
      await c.secrets.send(new PutSecretValueCommand({ SecretId: made.ARN!, SecretString: '{"username":"u","password":"q"}' }));
      const read = await c.secrets.send(new GetSecretValueCommand({ SecretId: 'denv/x' }));
      expect(read).toMatchObject({ ARN: made.ARN, Name: 'denv/x', SecretString: '{"username":"u","password":"q"}', VersionStages: ['AWSCURRENT'] });
      expect(read.CreatedDate).toBeInstanceOf(Date);
      const described = await c.secrets.send(new DescribeSecretCommand({ SecretId: made.ARN! }));
      expect(described).toMatchObject({ ARN: made.ARN, Name: 'denv/x', Description: 'd' });
      expect(Object.values(described.VersionIdsToStages ?? {}).sort()).toEqual([['AWSCURRENT'], ['AWSPREVIOUS']]);
    } finally {
      closeAwsClients(c);
    }
    const wrong = makeAwsClients({ ...KEYS, secretAccessKey: 'wrong', region: REGION, endpoint: fake.url, maxAttempts: 1 });
    try {
      expect(await wrong.secrets.send(new GetSecretValueCommand({ SecretId: 'denv/x' })).catch((e: Error) => e.name)).toBe('InvalidSignatureException');
    } finally {
      closeAwsClients(wrong);
    }
  });

  test('teardown keeps the secret and the role\'s policy (scaffolding, like the role)', async () => {
    const { fake, target } = await privateSetup();
    const p = pulling();
    await target.apply(p, { registryCredentials: LOGIN });
    expect(await target.teardown(p)).toEqual({ existed: true });
    expect(fake.state.secrets.has(SECRET)).toBe(true);
    expect(fake.state.roles.get('denv-ecs-execution')!.inline.has(POLICY)).toBe(true);
    expect(fake.operations().filter((o) => /:(Delete|Remove)/.test(o))).toEqual(['ecs:DeleteService']);
  });
});
