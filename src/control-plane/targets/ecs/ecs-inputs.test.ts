import { describe, expect, test } from 'vitest';
import type { Spec } from '../../../contracts/spec-types.js';
import { createServiceInput, ingressPermission, opensPort, registerInput, scaleToZeroInput, updateServiceInput } from './ecs-inputs.js';
import { NO_IMAGE, planEcs } from './ecs-plan.js';

const spec = (image: string | null, build = false): Spec => ({
  services: {
    web: {
      image, command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 },
      build: build ? { context: '/', dockerfile: null, args: {}, target: null } : null,
    },
  },
  volumes: [], warm: null, target: 'aws_ecs', approval: null, agent: null, verifier: null,
});
const plan = planEcs({ spec: spec('a/web:1'), envName: 'prod', instructions: 'port 3000', replacesVersion: null, account: { region: 'eu-central-1' } });
const net = { subnets: ['subnet-1', 'subnet-2'], securityGroupId: 'sg-1' };
const ROLE = 'arn:aws:iam::123456789012:role/denv-ecs-execution';

describe('registerInput', () => {
  test('the plan\'s task definition with the role ARN; a given image replaces the plan\'s', () => {
    const input = registerInput(plan, { executionRoleArn: ROLE });
    expect(input).toEqual({ ...plan.taskDefinition, executionRoleArn: ROLE });
    expect(registerInput(plan, { executionRoleArn: ROLE, image: 'a/web:2' }).containerDefinitions?.[0]?.image).toBe('a/web:2');
    expect(plan.taskDefinition.containerDefinitions?.[0]?.image).toBe('a/web:1'); // not mutated
  });
  test('a plan from a build has no image until apply gives one', () => {
    const built = planEcs({ spec: spec(null, true), envName: 'prod', instructions: '', replacesVersion: null, account: { region: 'eu-central-1' } });
    expect(built.taskDefinition.containerDefinitions?.[0]?.image).toBeUndefined();
    expect(() => registerInput(built, { executionRoleArn: ROLE })).toThrow(NO_IMAGE);
    expect(registerInput(built, { executionRoleArn: ROLE, image: 'reg/app@sha256:ab' }).containerDefinitions?.[0]?.image).toBe('reg/app@sha256:ab');
  });
});

describe('service inputs', () => {
  const td = 'arn:aws:ecs:eu-central-1:123456789012:task-definition/denv-prod:1';
  test('CreateService: Fargate, public IP, the network found, the circuit breaker', () => {
    expect(createServiceInput(plan, td, net)).toEqual({
      cluster: 'denv',
      serviceName: 'denv-prod',
      taskDefinition: td,
      desiredCount: 1,
      launchType: 'FARGATE',
      networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-1', 'subnet-2'], securityGroups: ['sg-1'], assignPublicIp: 'ENABLED' } },
      deploymentConfiguration: { minimumHealthyPercent: 100, maximumPercent: 200, deploymentCircuitBreaker: { enable: true, rollback: true } },
      propagateTags: 'SERVICE',
      tags: [{ key: 'denv:env', value: 'prod' }],
    });
  });
  test('UpdateService: the new task definition at the plan\'s count; stop: count 0 only', () => {
    expect(updateServiceInput(plan, td, net)).toMatchObject({ cluster: 'denv', service: 'denv-prod', taskDefinition: td, desiredCount: 1 });
    expect(scaleToZeroInput(plan)).toEqual({ cluster: 'denv', service: 'denv-prod', desiredCount: 0 });
  });
});

describe('ingress', () => {
  test('the rule for the port, and whether a group has it', () => {
    expect(ingressPermission(3000)).toEqual({ IpProtocol: 'tcp', FromPort: 3000, ToPort: 3000, IpRanges: [{ CidrIp: '0.0.0.0/0', Description: 'denv: the app port' }] });
    expect(opensPort({ IpPermissions: [ingressPermission(3000)] }, 3000)).toBe(true);
    expect(opensPort({ IpPermissions: [ingressPermission(3000)] }, 8080)).toBe(false);
    expect(opensPort({ IpPermissions: [{ IpProtocol: 'tcp', FromPort: 1, ToPort: 65535, IpRanges: [{ CidrIp: '10.0.0.0/8' }] }] }, 3000)).toBe(false);
    expect(opensPort({ IpPermissions: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }] }, 3000)).toBe(true);
  });
});
