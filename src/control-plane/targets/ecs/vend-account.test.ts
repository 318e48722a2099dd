/**
 * Vending an account: the pure builders on their exact output, then Organizations CreateAccount /
 * DescribeCreateAccountStatus against the local AWS API server (test/helpers/aws-api-server.ts),
 * through to assuming the new account's role and deploying in it.
 */
import { CreateAccountCommand, OrganizationsClient } from '@aws-sdk/client-organizations';
import { afterEach, describe, expect, test } from 'vitest';
import { startAwsApiServer, type AwsApiServerOptions, type FakeAws } from '../../../../test/helpers/aws-api-server.js';
import type { Spec } from '../../../contracts/spec-types.js';
import { assumeRole } from './assume-role.js';
import { AwsCallError } from './aws-call.js';
import { planEcs } from './ecs-plan.js';
import { EcsTarget } from './ecs-target.js';
import { createAccountInput, organizationsRegion, partitionOf, roleArnFor, startVending, vendingStatus, vendingStatusOf } from './vend-account.js';

const KEYS = { accessKeyId: 'AKIDDENVORG', secretAccessKey: 'denv-org-secret' };
const REGION = 'eu-central-1';

describe('pure parts', () => {
  test('createAccountInput: the role defaults to OrganizationAccountAccessRole', () => {
    expect(createAccountInput({ accountName: 'denv acme', email: 'aws+acme@denv.example' })).toEqual({ AccountName: 'denv acme', Email: 'aws+acme@denv.example', RoleName: 'OrganizationAccountAccessRole' });
    expect(createAccountInput({ accountName: 'denv acme', email: 'aws+acme@denv.example', roleName: 'DenvAccess' })).toEqual({ AccountName: 'denv acme', Email: 'aws+acme@denv.example', RoleName: 'DenvAccess' });
  });

  test('partition and the region Organizations is signed for', () => {
    expect(['eu-central-1', 'us-east-1', 'ap-southeast-2', 'cn-north-1', 'cn-northwest-1', 'us-gov-east-1'].map((r) => [partitionOf(r), organizationsRegion(r)])).toEqual([
      ['aws', 'us-east-1'], ['aws', 'us-east-1'], ['aws', 'us-east-1'], ['aws-cn', 'cn-northwest-1'], ['aws-cn', 'cn-northwest-1'], ['aws-us-gov', 'us-gov-west-1'],
    ]);
    expect(roleArnFor('aws-cn', '210000000001', 'OrganizationAccountAccessRole')).toBe('arn:aws-cn:iam::210000000001:role/OrganizationAccountAccessRole');
  });

  test('vendingStatusOf: each state', () => {
    const o = { partition: 'aws', roleName: 'OrganizationAccountAccessRole' } as const;
    expect(vendingStatusOf({ Id: 'car-1', State: 'IN_PROGRESS' }, o)).toEqual({ state: 'IN_PROGRESS', accountId: null, failureReason: null, roleArn: null });
    expect(vendingStatusOf({ Id: 'car-1', State: 'SUCCEEDED', AccountId: '210000000001' }, o)).toEqual({
      state: 'SUCCEEDED', accountId: '210000000001', failureReason: null, roleArn: 'arn:aws:iam::210000000001:role/OrganizationAccountAccessRole',
    });
    expect(vendingStatusOf({ Id: 'car-1', State: 'FAILED', FailureReason: 'EMAIL_ALREADY_EXISTS' }, o)).toEqual({ state: 'FAILED', accountId: null, failureReason: 'EMAIL_ALREADY_EXISTS', roleArn: null });
    expect(vendingStatusOf({ Id: 'car-1', State: 'FAILED' }, o)).toMatchObject({ failureReason: 'UNKNOWN' });
    expect(() => vendingStatusOf(undefined, o)).toThrow('organizations:DescribeCreateAccountStatus: unexpected state undefined');
    expect(() => vendingStatusOf({ State: 'SUCCEEDED' }, o)).toThrow('SUCCEEDED without an AccountId');
  });
});

describe('vending against the local AWS API server', () => {
  let aws: FakeAws | null = null;
  const targets: EcsTarget[] = [];
  afterEach(async () => {
    for (const t of targets.splice(0)) t.close();
    await aws?.close();
    aws = null;
  });
  async function setup(o: Partial<AwsApiServerOptions> = {}) {
    aws = await startAwsApiServer({ ...KEYS, region: REGION, ...o });
    return { fake: aws, org: { ...KEYS, region: REGION, endpoint: aws.url } };
  }

  test('IN_PROGRESS, then SUCCEEDED with the account id and role ARN; the role is assumable and a plan deploys in the new account', async () => {
    const { fake, org } = await setup({ vendPolls: 2 });
    const { createRequestId } = await startVending(org, { accountName: 'denv acme', email: 'aws+acme@denv.example' });
    expect(createRequestId).toMatch(/^car-[a-z0-9]{32}$/);
    expect(fake.calls[0]).toEqual({
      service: 'organizations', operation: 'CreateAccount', input: { AccountName: 'denv acme', Email: 'aws+acme@denv.example', RoleName: 'OrganizationAccountAccessRole' },
      status: 200, error: null, accountId: fake.accountId,
    });
    const pending = { state: 'IN_PROGRESS', accountId: null, failureReason: null, roleArn: null };
    expect(await vendingStatus(org, createRequestId)).toEqual(pending);
    expect(await vendingStatus(org, createRequestId)).toEqual(pending);
    const done = await vendingStatus(org, createRequestId);
    expect(done).toEqual({ state: 'SUCCEEDED', accountId: expect.stringMatching(/^\d{12}$/), failureReason: null, roleArn: `arn:aws:iam::${done.accountId}:role/OrganizationAccountAccessRole` });
    expect(done.accountId).not.toBe(fake.accountId);
    expect(await vendingStatus(org, createRequestId)).toEqual(done); // stays
    expect(fake.calls.filter((c) => c.operation === 'DescribeCreateAccountStatus').map((c) => c.input)).toEqual(Array(4).fill({ CreateAccountRequestId: createRequestId }));

    const creds = await assumeRole(org, done.roleArn!, { sessionName: 'denv-vend' });
    const target = new EcsTarget(creds);
    targets.push(target);
    const spec: Spec = {
      services: { web: { image: 'ghcr.io/acme/web:1', command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 } } },
      volumes: [], warm: null, target: 'aws_ecs', approval: null, agent: null, verifier: null,
    };
    const plan = planEcs({ spec, envName: 'prod', instructions: 'listens on 3000', replacesVersion: null, account: { region: REGION } });
    const out = await target.apply(plan);
    expect(out.serviceArn).toBe(`arn:aws:ecs:${REGION}:${done.accountId}:service/denv/denv-prod`);
    expect([...fake.account(done.accountId!).services.keys()]).toEqual(['denv/denv-prod']);
    expect(fake.state.services.size).toBe(0);
    expect(fake.calls.filter((c) => c.service === 'ecs').every((c) => c.accountId === done.accountId)).toBe(true);
  });

  test('a custom role name ends up in the role ARN', async () => {
    const { org } = await setup({ vendPolls: 0 });
    const { createRequestId } = await startVending(org, { accountName: 'denv acme', email: 'aws+acme@denv.example', roleName: 'DenvAccess' });
    const done = await vendingStatus(org, createRequestId, { roleName: 'DenvAccess' });
    expect(done.roleArn).toBe(`arn:aws:iam::${done.accountId}:role/DenvAccess`);
    await expect(assumeRole(org, done.roleArn!, { sessionName: 'denv-vend' })).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIA/) });
  });

  test('an email already used: the request FAILED with EMAIL_ALREADY_EXISTS, no account', async () => {
    const { fake, org } = await setup({ vendPolls: 0, email: 'root@operator.example' });
    const first = await startVending(org, { accountName: 'denv acme', email: 'aws+acme@denv.example' });
    expect(await vendingStatus(org, first.createRequestId)).toMatchObject({ state: 'SUCCEEDED' });
    const again = await startVending(org, { accountName: 'denv acme 2', email: 'AWS+acme@denv.example' });
    expect(await vendingStatus(org, again.createRequestId)).toEqual({ state: 'FAILED', accountId: null, failureReason: 'EMAIL_ALREADY_EXISTS', roleArn: null });
    const operators = await startVending(org, { accountName: 'denv operator', email: 'root@operator.example' });
    expect(await vendingStatus(org, operators.createRequestId)).toMatchObject({ state: 'FAILED', failureReason: 'EMAIL_ALREADY_EXISTS' });
    expect(fake.accounts.size).toBe(2); // the organization's and the first one vended
  });

  test('refusals are errors naming the call: a bad email, an unknown request, a member account asking', async () => {
    const { fake, org } = await setup({ vendPolls: 0 });
    await expect(startVending(org, { accountName: 'denv acme', email: 'not-an-email' })).rejects.toThrow(/^organizations:CreateAccount: InvalidInputException: .*\(Email\)$/);
    const missing = await vendingStatus(org, 'car-0123456789abcdef').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(AwsCallError);
    expect(missing).toMatchObject({ call: 'organizations:DescribeCreateAccountStatus', awsName: 'CreateAccountStatusNotFoundException', retryable: false });

    const { createRequestId } = await startVending(org, { accountName: 'denv acme', email: 'aws+acme@denv.example' });
    const member = await assumeRole(org, (await vendingStatus(org, createRequestId)).roleArn!, { sessionName: 'denv-vend' });
    await expect(startVending(member, { accountName: 'nested', email: 'aws+nested@denv.example' })).rejects.toThrow(/^organizations:CreateAccount: AccessDeniedException: /);
    expect(fake.calls.at(-1)!.accountId).not.toBe(fake.accountId);
  });

  test('Organizations must be signed for us-east-1: a client left in the account region is refused', async () => {
    const { fake } = await setup();
    const client = new OrganizationsClient({ region: REGION, endpoint: fake.url, credentials: KEYS, maxAttempts: 1 });
    try {
      await expect(client.send(new CreateAccountCommand({ AccountName: 'x', Email: 'aws+x@denv.example' }))).rejects.toThrow(/Credential should be scoped to a valid region/);
    } finally {
      client.destroy();
    }
    expect(fake.calls.map((c) => [c.operation, c.error])).toEqual([['CreateAccount', 'InvalidSignatureException']]);
  });
});
