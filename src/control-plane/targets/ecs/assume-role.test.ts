/**
 * assumeRole: the pure request/answer mapping and the refresh cache on their exact output, then
 * STS AssumeRole against the local AWS API server (test/helpers/aws-api-server.ts), whose issued
 * temporary keys act in the role's account: the executor applies a plan there with them.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { startAwsApiServer, type FakeAws } from '../../../../test/helpers/aws-api-server.js';
import type { Spec } from '../../../contracts/spec-types.js';
import {
  AssumedRoleCache,
  assumedCredentials,
  assumeRole,
  assumeRoleInput,
  needsRefresh,
  parseRoleArn,
  REFRESH_BEFORE_MS,
  toSessionName,
  type AssumedCredentials,
} from './assume-role.js';
import { AwsCallError } from './aws-call.js';
import { planEcs } from './ecs-plan.js';
import { EcsTarget } from './ecs-target.js';

const KEYS = { accessKeyId: 'AKIDDENVTEST', secretAccessKey: 'denv-test-secret' };
const REGION = 'eu-central-1';
const TEAM_ACCOUNT = '444455556666';

describe('pure parts', () => {
  test('assumeRoleInput: the session name always, the external id and duration when given', () => {
    expect(assumeRoleInput('arn:aws:iam::444455556666:role/denv', { sessionName: 'denv-prod' })).toEqual({ RoleArn: 'arn:aws:iam::444455556666:role/denv', RoleSessionName: 'denv-prod' });
    expect(assumeRoleInput('arn:aws:iam::444455556666:role/denv', { sessionName: 'denv-prod', externalId: 'denv-team-7f3a', durationS: 900 })).toEqual({
      RoleArn: 'arn:aws:iam::444455556666:role/denv',
      RoleSessionName: 'denv-prod',
      ExternalId: 'denv-team-7f3a',
      DurationSeconds: 900,
    });
  });

  test('assumedCredentials: the temporary keys in the base region and endpoint, the expiry as ISO', () => {
    const base = { ...KEYS, region: REGION, endpoint: 'http://127.0.0.1:1', maxAttempts: 2 };
    const out = { Credentials: { AccessKeyId: 'ASIAEXAMPLE', SecretAccessKey: 's3cret', SessionToken: 'tok', Expiration: new Date('2030-01-01T10:00:00Z') } };
    expect(assumedCredentials(base, out)).toEqual({
      accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 's3cret', sessionToken: 'tok', region: REGION, endpoint: 'http://127.0.0.1:1', maxAttempts: 2, expiresAt: '2030-01-01T10:00:00.000Z',
    });
    expect(assumedCredentials({ ...KEYS, region: 'us-east-1' }, out)).toEqual({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 's3cret', sessionToken: 'tok', region: 'us-east-1', expiresAt: '2030-01-01T10:00:00.000Z' });
    expect(() => assumedCredentials(base, {})).toThrow('sts:AssumeRole: the answer has no complete Credentials');
  });

  test('parseRoleArn and toSessionName', () => {
    expect(parseRoleArn('arn:aws:iam::444455556666:role/denv')).toEqual({ partition: 'aws', accountId: '444455556666', roleName: 'denv' });
    expect(parseRoleArn('arn:aws-us-gov:iam::444455556666:role/teams/deploy/denv-access')).toEqual({ partition: 'aws-us-gov', accountId: '444455556666', roleName: 'denv-access' });
    for (const bad of ['arn:aws:iam::4444:role/denv', 'arn:aws:iam::444455556666:user/denv', 'arn:aws:sts::444455556666:assumed-role/denv/x', 'denv']) expect(parseRoleArn(bad)).toBeNull();
    expect(toSessionName('denv acme/prod')).toBe('denv-acme-prod');
    expect(toSessionName('x')).toBe('denv-x');
    expect(toSessionName('e'.repeat(80))).toBe('e'.repeat(64));
  });

  test('needsRefresh: less than five minutes left', () => {
    const c = { expiresAt: '2030-01-01T10:00:00.000Z' };
    const at = Date.parse(c.expiresAt);
    expect(REFRESH_BEFORE_MS).toBe(300_000);
    expect(needsRefresh(c, at - 3_600_000)).toBe(false);
    expect(needsRefresh(c, at - REFRESH_BEFORE_MS)).toBe(false);
    expect(needsRefresh(c, at - REFRESH_BEFORE_MS + 1)).toBe(true);
    expect(needsRefresh(c, at + 1)).toBe(true);
  });
});

describe('AssumedRoleCache (clock and assume injected)', () => {
  const base = { ...KEYS, region: REGION };
  const ARN = 'arn:aws:iam::444455556666:role/denv';
  const fake = () => {
    let clock = Date.parse('2030-01-01T09:00:00Z');
    const asked: string[] = [];
    const cache = new AssumedRoleCache({
      now: () => clock,
      assume: async (_base, roleArn, o) => {
        asked.push(`${roleArn} ${o.sessionName}`);
        if (roleArn.endsWith('/broken')) throw new Error('sts:AssumeRole: AccessDenied: no');
        return { ...KEYS, accessKeyId: `ASIA${asked.length}`, sessionToken: 't', region: REGION, expiresAt: new Date(clock + 3_600_000).toISOString() } satisfies AssumedCredentials;
      },
    });
    return { cache, asked, tick: (ms: number) => (clock += ms) };
  };

  test('reuses the credentials until less than five minutes are left, then assumes again', async () => {
    const { cache, asked, tick } = fake();
    expect((await cache.get(base, ARN, { sessionName: 'denv' })).accessKeyId).toBe('ASIA1');
    tick(55 * 60_000);
    expect((await cache.get(base, ARN, { sessionName: 'denv' })).accessKeyId).toBe('ASIA1');
    tick(1);
    expect((await cache.get(base, ARN, { sessionName: 'denv' })).accessKeyId).toBe('ASIA2');
    expect(asked).toEqual([`${ARN} denv`, `${ARN} denv`]);
  });

  test('another session, external id or role is another entry; concurrent gets share one call; a failure is not kept', async () => {
    const { cache, asked } = fake();
    const [a, b] = await Promise.all([cache.get(base, ARN, { sessionName: 'denv' }), cache.get(base, ARN, { sessionName: 'denv' })]);
    expect(a).toBe(b);
    await cache.get(base, ARN, { sessionName: 'other' });
    await cache.get(base, ARN, { sessionName: 'denv', externalId: 'x1' });
    expect(asked).toHaveLength(3);
    await expect(cache.get(base, 'arn:aws:iam::444455556666:role/broken', { sessionName: 'denv' })).rejects.toThrow('AccessDenied');
    await expect(cache.get(base, 'arn:aws:iam::444455556666:role/broken', { sessionName: 'denv' })).rejects.toThrow('AccessDenied');
    expect(asked).toHaveLength(5);
  });
});

describe('assumeRole against the local AWS API server', () => {
  let aws: FakeAws | null = null;
  const targets: EcsTarget[] = [];
  afterEach(async () => {
    for (const t of targets.splice(0)) t.close();
    await aws?.close();
    aws = null;
  });

  const spec: Spec = {
    services: { web: { image: 'ghcr.io/acme/web:1', command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 } } },
    volumes: [], warm: null, target: 'aws_ecs', approval: null, agent: null, verifier: null,
  };
  const plan = planEcs({ spec, envName: 'prod', instructions: 'listens on 3000', replacesVersion: null, account: { region: REGION } });

  async function setup() {
    aws = await startAwsApiServer({ ...KEYS, region: REGION });
    const role = aws.addRole(TEAM_ACCOUNT, 'denv-deploy', { externalId: 'denv-team-7f3a' });
    return { fake: aws, base: { ...KEYS, region: REGION, endpoint: aws.url }, roleArn: role.Arn };
  }

  test("a team's role: temporary credentials that the executor uses to apply a plan in that account", async () => {
    const { fake, base, roleArn } = await setup();
    const before = Date.now();
    const creds = await assumeRole(base, roleArn, { sessionName: 'denv-prod', externalId: 'denv-team-7f3a' });
    expect(creds).toEqual({
      accessKeyId: expect.stringMatching(/^ASIA[A-Z0-9]{16}$/), secretAccessKey: expect.any(String), sessionToken: expect.any(String),
      region: REGION, endpoint: fake.url, expiresAt: expect.any(String),
    });
    const after = Date.now();
    // AWS's default hour, in whole seconds.
    expect(Date.parse(creds.expiresAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3_600_000);
    expect(Date.parse(creds.expiresAt)).toBeLessThanOrEqual(after + 3_600_000);
    // What denv sent, as the server parsed it.
    expect(fake.calls).toEqual([
      { service: 'sts', operation: 'AssumeRole', input: { RoleArn: roleArn, RoleSessionName: 'denv-prod', ExternalId: 'denv-team-7f3a' }, status: 200, error: null, accountId: fake.accountId },
    ]);

    const target = new EcsTarget(creds);
    targets.push(target);
    const out = await target.apply(plan);
    expect(out.serviceArn).toBe(`arn:aws:ecs:${REGION}:${TEAM_ACCOUNT}:service/denv/denv-prod`);
    expect(await target.waitStable(plan, { timeoutMs: 5000, intervalMs: 10, taskDefinitionArn: out.taskDefinitionArn })).toMatchObject({ outcome: 'stable', runningCount: 1 });
    // Everything happened in the team's account, nothing in the server's own.
    const team = fake.account(TEAM_ACCOUNT);
    expect([...team.clusters.keys()]).toEqual(['denv']);
    expect([...team.services.keys()]).toEqual(['denv/denv-prod']);
    expect(team.roles.get('denv-ecs-execution')!.Arn).toBe(`arn:aws:iam::${TEAM_ACCOUNT}:role/denv-ecs-execution`);
    expect(fake.state.clusters.size + fake.state.services.size + fake.state.roles.size).toBe(0);
    expect(new Set(fake.calls.slice(1).map((c) => c.accountId))).toEqual(new Set([TEAM_ACCOUNT]));
  });

  test('a wrong role ARN, or the wrong external id: AccessDenied from sts:AssumeRole', async () => {
    const { fake, base, roleArn } = await setup();
    const err = await assumeRole(base, `arn:aws:iam::${TEAM_ACCOUNT}:role/nope`, { sessionName: 'denv-prod', externalId: 'denv-team-7f3a' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCallError);
    expect(err).toMatchObject({ call: 'sts:AssumeRole', awsName: 'AccessDenied', httpStatus: 403, retryable: false });
    expect((err as Error).message).toBe(`sts:AssumeRole: AccessDenied: User: arn:aws:iam::${fake.accountId}:user/denv-test is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::${TEAM_ACCOUNT}:role/nope`);
    await expect(assumeRole(base, roleArn, { sessionName: 'denv-prod', externalId: 'someone-else' })).rejects.toThrow(/^sts:AssumeRole: AccessDenied: /);
    await expect(assumeRole(base, roleArn, { sessionName: 'denv-prod' })).rejects.toThrow(/^sts:AssumeRole: AccessDenied: /);
    await expect(assumeRole(base, roleArn, { sessionName: 'x' })).rejects.toThrow(/^sts:AssumeRole: ValidationError: .*roleSessionName/);
    await expect(assumeRole({ ...base, secretAccessKey: 'wrong' }, roleArn, { sessionName: 'denv-prod', externalId: 'denv-team-7f3a' })).rejects.toThrow(/^sts:AssumeRole: SignatureDoesNotMatch: /);
    expect(fake.sessions.size).toBe(0);
  });

  test('the temporary keys need their session token, and stop working when they expire', async () => {
    const { fake, base, roleArn } = await setup();
    const creds = await assumeRole(base, roleArn, { sessionName: 'denv-prod', externalId: 'denv-team-7f3a', durationS: 900 });
    expect(Date.parse(creds.expiresAt) - Date.now()).toBeLessThanOrEqual(900_000);
    const { sessionToken: _dropped, ...withoutToken } = creds;
    const bare = new EcsTarget({ ...withoutToken, maxAttempts: 1 });
    targets.push(bare);
    await expect(bare.liveStatus(plan)).rejects.toThrow(/^ecs:DescribeServices: UnrecognizedClientException: /);

    const target = new EcsTarget({ ...creds, maxAttempts: 1 });
    targets.push(target);
    await expect(target.liveStatus(plan)).resolves.toEqual({ workloads: [], endpoints: [], rollout: null });
    fake.sessions.get(creds.accessKeyId)!.expiresAt = Date.now() - 1;
    await expect(target.liveStatus(plan)).rejects.toThrow(/^ecs:DescribeServices: ExpiredTokenException: The security token included in the request is expired$/);
    expect(fake.calls.map((c) => [c.operation, c.error, c.accountId])).toEqual([
      ['AssumeRole', null, fake.accountId],
      ['DescribeServices', 'UnrecognizedClientException', null],
      ['DescribeServices', 'ClusterNotFoundException', TEAM_ACCOUNT], // accepted: nothing deployed there yet
      ['DescribeServices', 'ExpiredTokenException', null],
    ]);
  });
});
