/**
 * AWS accounts reached without their keys (seed 002's `aws_account` target), end to end through a
 * control plane started with operator credentials: a role a team made, which denv assumes with the
 * external id it made, and an account vended by the operator's AWS Organization. Against the local
 * AWS API server (test/helpers/aws-api-server.ts: STS checks trust policies and external ids,
 * Organizations vends accounts with their own state, every call records the account it acted in);
 * contract-tested, since no AWS account can be used here.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.js';
import { Api, waitFor } from '../helpers/api.js';
import { startAwsApiServer, type FakeAws } from '../helpers/aws-api-server.js';
import { FAST_TIMINGS } from '../helpers/harness.js';
import { denvJson } from '../helpers/processes.js';
import { freshDataDir, storeOptions } from '../helpers/stores.js';

const OPERATOR = { accessKeyId: 'AKIADENVOPERATOR0001', secretAccessKey: 'denv-operator-secret-0000000000000000' };
const OPERATOR_ACCOUNT = '111122223333';
const TEAM_ACCOUNT = '444455556666';
const REGION = 'eu-central-1';
const compose = (image: string) => ({ services: { api: { image, ports: ['3000'] } }, 'x-denv': { target: 'aws_ecs' } });

describe('aws accounts by role and by vending', () => {
  let aws: FakeAws;
  let cp: ControlPlane;
  let api: Api;
  let bare: ControlPlane;

  beforeAll(async () => {
    aws = await startAwsApiServer({ ...OPERATOR, region: 'us-east-1', accountId: OPERATOR_ACCOUNT, email: 'root@operator.example' });
    const dir = freshDataDir();
    cp = await startControlPlane({
      port: 0, ...(await storeOptions('pglite', path.join(dir, 'cp'))), ...FAST_TIMINGS, liveStatusMs: 500, vendingPollMs: 100,
      awsOperator: { ...OPERATOR, region: 'us-east-1', endpoint: aws.url }, log: () => {},
    });
    api = new Api(cp.url, cp.adminToken);
    expect((await api.post('/v1/projects', { name: 'shop' })).status).toBe(201);
    bare = await startControlPlane({ port: 0, ...(await storeOptions('pglite', path.join(dir, 'bare'))), ...FAST_TIMINGS, log: () => {} });
  }, 60_000);

  afterAll(async () => {
    await cp?.close();
    await bare?.close();
    await aws?.close();
  });

  const account = async (name: string) => ((await api.get('/v1/aws-accounts')).body.items as any[]).find((a) => a.name === name);
  const events = async (id: string) => ((await api.get(`/v1/events?subject=aws_account:${id}`)).body.items as { type: string; data: any }[]).map((e) => e.type);
  /** Deploys `image` as env `name` on account `on`; resolves with the finished deployment. */
  const deploy = async (name: string, on: string, image = `registry.example.test/api:${name}`) => {
    const res = await api.post('/v1/projects/shop/deploy', { env: name, compose: compose(image), target: { aws_account: on } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return { env: res.body.env.id as string, deployment: await api.finished(res.body.deployment.id, 90_000) };
  };

  it('refuses a body that names no way, or two, or keys in part, writing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'give exactly one of'],
      [{ access_key_id: 'AKIAAAAAAAAAAAAAAAAA', secret_access_key: 'x'.repeat(20), role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv` }, 'give exactly one of'],
      [{ access_key_id: 'AKIAAAAAAAAAAAAAAAAA' }, 'secret_access_key: required with keys'],
      [{ role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv`, endpoint: aws.url }, 'endpoint: only with keys'],
      [{ role_arn: 'arn:aws:iam::12:role/denv' }, 'role_arn: expected an IAM role ARN'],
      [{ vend: { email: 'not-an-email' } }, 'vend.email: expected an email address'],
      [{ role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv`, external_id: 'mine' }, 'unknown field "external_id"'],
    ];
    for (const [body, message] of cases) {
      const res = await api.post('/v1/aws-accounts', { name: 'bad', region: REGION, ...body });
      expect([res.status, res.body.error.message], JSON.stringify(body)).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await api.get('/v1/aws-accounts')).body.items).toEqual([]);
  });

  it('without operator credentials a role or vended account is refused with 409, naming the flag', async () => {
    const plain = new Api(bare.url, bare.adminToken);
    for (const way of [{ role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv` }, { vend: { email: 'a@example.com' } }]) {
      const res = await plain.post('/v1/aws-accounts', { name: 'x', region: REGION, ...way });
      expect([res.status, res.body.error.code]).toEqual([409, 'CONFLICT']);
      expect(res.body.error.message).toContain('--aws-operator-credentials');
    }
    expect((await plain.get('/v1/aws-accounts')).body.items).toEqual([]);
  });

  it("runs an env in the team's own account through the role it made, with the external id denv made", async () => {
    // Through the CLI, as a team would: the answer carries the external id and the trust policy to give the role.
    const made = await denvJson(cp, ['aws-account', 'add', 'team', '--region', REGION, '--role-arn', `arn:aws:iam::${TEAM_ACCOUNT}:role/denv-deployer`]);
    expect(made).toMatchObject({ kind: 'role', state: 'ready', account_id: TEAM_ACCOUNT, role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv-deployer` });
    expect(made.external_id).toMatch(/^denv-[\w-]{24}$/);
    expect(made.trust_policy).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${OPERATOR_ACCOUNT}:root` }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'sts:ExternalId': made.external_id } } }],
    });
    // The team makes the role as the policy says.
    aws.addRole(TEAM_ACCOUNT, 'denv-deployer', { trustedAccountId: OPERATOR_ACCOUNT, externalId: made.external_id });
    const from = aws.calls.length;

    const { env, deployment } = await deploy('in-team', 'team');
    expect(deployment.status, deployment.error ?? '').toBe('succeeded');
    const calls = aws.calls.slice(from);
    const assume = calls.filter((c) => c.operation === 'AssumeRole');
    expect(assume.length).toBeGreaterThan(0);
    for (const c of assume) expect([c.accountId, c.input.RoleArn, c.input.ExternalId, c.status]).toEqual([OPERATOR_ACCOUNT, made.role_arn, made.external_id, 200]);
    // Everything else acted in the team's account; the operator's own account got no ECS resource.
    expect(calls.filter((c) => c.operation !== 'AssumeRole').map((c) => c.accountId)).toEqual(expect.arrayContaining([TEAM_ACCOUNT]));
    expect(new Set(calls.filter((c) => c.operation !== 'AssumeRole').map((c) => c.accountId))).toEqual(new Set([TEAM_ACCOUNT]));
    expect([...aws.account(TEAM_ACCOUNT).services.keys()]).toHaveLength(1);
    expect([...aws.state.services.keys()]).toEqual([]);
    expect((await api.get(`/v1/envs/${env}`)).body.endpoints[0].url).toMatch(/^http:\/\/203\.0\.113\.\d+:3000$/);
  });

  it('a role whose trust policy wants another external id fails the deploy at place, saying what the policy must allow, and nothing is made', async () => {
    const made = (await api.post('/v1/aws-accounts', { name: 'strict', region: REGION, role_arn: `arn:aws:iam::${TEAM_ACCOUNT}:role/denv-strict` })).body;
    aws.addRole(TEAM_ACCOUNT, 'denv-strict', { trustedAccountId: OPERATOR_ACCOUNT, externalId: 'someone-elses-id' });
    const from = aws.calls.length;
    const { deployment } = await deploy('strict-env', 'strict');
    expect(deployment.status).toBe('failed');
    expect(deployment.error).toBe(
      `place: cannot act in AWS account strict (arn:aws:iam::${TEAM_ACCOUNT}:role/denv-strict): sts:AssumeRole: AccessDenied: User: arn:aws:iam::${OPERATOR_ACCOUNT}:user/denv-test is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::${TEAM_ACCOUNT}:role/denv-strict; its trust policy must let arn:aws:iam::${OPERATOR_ACCOUNT}:root assume it with sts:ExternalId ${made.external_id} (GET /v1/aws-accounts shows the policy)`,
    );
    // Nothing made: no call that makes or changes anything (meanwhile the status sweep may read the env the test before runs).
    expect(aws.calls.slice(from).map((c) => c.operation).filter((op) => op !== 'AssumeRole' && !/^(Describe|List|Get)/.test(op))).toEqual([]);
  });

  it("vends an account through the operator's organization (one CreateAccount), then runs an env in it", async () => {
    const res = await api.post('/v1/aws-accounts', { name: 'sandbox', region: REGION, vend: { email: 'aws+sandbox@example.com' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'vended', state: 'vending', email: 'aws+sandbox@example.com', account_id: null, role_arn: null });
    const ready = await waitFor(async () => ((await account('sandbox'))?.state === 'ready' ? account('sandbox') : undefined), 30_000, 'the account to be vended');
    const [request] = [...aws.createAccountRequests.values()].filter((r) => r.email === 'aws+sandbox@example.com');
    expect(request).toMatchObject({ accountName: 'denv-sandbox', roleName: 'OrganizationAccountAccessRole', state: 'SUCCEEDED' });
    expect(ready).toMatchObject({ account_id: request!.accountId, role_arn: `arn:aws:iam::${request!.accountId}:role/OrganizationAccountAccessRole`, failure_reason: null });
    expect(aws.operations().filter((op) => op === 'organizations:CreateAccount')).toHaveLength(1);
    expect(await events(ready.id)).toEqual(['aws_account.added', 'aws_account.vending', 'aws_account.vended']);

    const { deployment } = await deploy('in-sandbox', 'sandbox');
    expect(deployment.status, deployment.error ?? '').toBe('succeeded');
    expect([...aws.account(request!.accountId!).services.keys()]).toHaveLength(1);
  });

  it('an account Organizations cannot make is failed with its reason and takes no env', async () => {
    const res = await api.post('/v1/aws-accounts', { name: 'dup', region: REGION, vend: { email: 'root@operator.example' } });
    expect(res.status).toBe(201);
    const failed = await waitFor(async () => ((await account('dup'))?.state === 'failed' ? account('dup') : undefined), 30_000, 'the vending to fail');
    expect(failed).toMatchObject({ failure_reason: 'EMAIL_ALREADY_EXISTS', account_id: null });
    expect(await events(failed.id)).toEqual(['aws_account.added', 'aws_account.vending', 'aws_account.vend_failed']);
    const dep = await api.post('/v1/projects/shop/deploy', { env: 'on-dup', compose: compose('registry.example.test/api:dup'), target: { aws_account: 'dup' } });
    const env = await waitFor(async () => {
      const e = (await api.get(`/v1/envs/${dep.body.env.id}`)).body;
      return e.status === 'failed' ? e : undefined;
    }, 30_000, 'the env on a failed account to fail');
    expect(env.last_error).toContain('AWS account dup could not be created: EMAIL_ALREADY_EXISTS');
  });
});
