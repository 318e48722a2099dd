import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../../contracts/load-spec.js';
import { readEcsArtifact } from './ecs-artifact.js';
import { NO_IMAGE, planEcs, type EcsPlanInput } from './ecs-plan.js';

const WEB = `services:\n  web:\n    image: ghcr.io/acme/web:1.4\n    environment:\n      NODE_ENV: production\n`;

async function input(compose: string, over: Partial<EcsPlanInput> = {}): Promise<EcsPlanInput> {
  return { spec: await loadSpec(compose), envName: 'prod', instructions: '', replacesVersion: null, account: { region: 'eu-central-1' }, ...over };
}

describe('planEcs', () => {
  test('one service, port from the instructions: the exact task definition and service', async () => {
    const plan = planEcs(await input(WEB, { instructions: 'The app listens on 3000.' }));
    expect(plan.taskDefinition).toEqual({
      family: 'denv-prod',
      cpu: '256',
      memory: '512',
      networkMode: 'awsvpc',
      requiresCompatibilities: ['FARGATE'],
      containerDefinitions: [
        {
          name: 'web',
          image: 'ghcr.io/acme/web:1.4',
          essential: true,
          portMappings: [{ containerPort: 3000, hostPort: 3000, protocol: 'tcp' }],
          environment: [
            { name: 'NODE_ENV', value: 'production' },
            { name: 'PORT', value: '3000' },
          ],
          logConfiguration: {
            logDriver: 'awslogs',
            options: { 'awslogs-group': '/denv/prod', 'awslogs-region': 'eu-central-1', 'awslogs-stream-prefix': 'web' },
          },
        },
      ],
      tags: [{ key: 'denv:env', value: 'prod' }],
    });
    expect(plan.service).toEqual({
      cluster: 'denv',
      serviceName: 'denv-prod',
      desiredCount: 1,
      launchType: 'FARGATE',
      assignPublicIp: 'ENABLED',
      securityGroupName: 'denv-prod',
      deploymentConfiguration: { minimumHealthyPercent: 100, maximumPercent: 200, deploymentCircuitBreaker: { enable: true, rollback: true } },
      tags: [{ key: 'denv:env', value: 'prod' }],
    });
    expect(plan.logGroup).toBe('/denv/prod');
    expect(plan.executionRole).toEqual({ name: 'denv-ecs-execution', policyArn: 'arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy' });
    expect(plan.container).toEqual({ name: 'web', service: 'web', port: 3000, portFrom: 'instructions' });
    expect(plan.summary).toBe(
      [
        'Deploy env prod to AWS ECS on Fargate in eu-central-1: service web (image ghcr.io/acme/web:1.4).',
        '- Task definition denv-prod: 0.25 vCPU and 512 MB, container web listening on port 3000 (from the instructions).',
        '- Service denv-prod on cluster denv: 1 task with a public IP, reachable at http://<task public IP>:3000.',
        '- Security group denv-prod in the default VPC opens TCP 3000 to the internet.',
        '- Logs go to CloudWatch Logs group /denv/prod; the task runs with execution role denv-ecs-execution.',
        '- Made when missing and kept on teardown: cluster denv, role denv-ecs-execution, log group /denv/prod, security group denv-prod. Teardown deletes only the service.',
        'Instructions: The app listens on 3000.',
      ].join('\n'),
    );
  });

  test('port from the spec when the instructions name none; the instructions win over the spec', async () => {
    const compose = `services:\n  api:\n    image: ghcr.io/acme/api:2\n    ports: ["9000"]\n`;
    const fromSpec = planEcs(await input(compose, { instructions: 'Keep it cheap.' }));
    expect(fromSpec.container).toEqual({ name: 'api', service: 'api', port: 9000, portFrom: 'spec' });
    expect(fromSpec.taskDefinition.containerDefinitions?.[0]?.portMappings).toEqual([{ containerPort: 9000, hostPort: 9000, protocol: 'tcp' }]);
    expect(fromSpec.summary).toContain('listening on port 9000 (from the Compose file)');
    const told = planEcs(await input(compose, { instructions: 'it serves on port 4000' }));
    expect(told.container.port).toBe(4000);
  });

  test('port 8080 by default, said so in the summary', async () => {
    const plan = planEcs(await input(WEB));
    expect(plan.container).toMatchObject({ port: 8080, portFrom: 'default' });
    expect(plan.taskDefinition.containerDefinitions?.[0]?.environment).toContainEqual({ name: 'PORT', value: '8080' });
    expect(plan.summary).toContain('port 8080 (the default; name another in the instructions, e.g. "listens on 3000")');
  });

  test('no image and nothing to build: refused with the seed\'s message', async () => {
    const spec = await loadSpec(`services:\n  worker:\n    command: ["node", "worker.js"]\n`);
    expect(() => planEcs({ spec, envName: 'prod', instructions: '', replacesVersion: null, account: { region: 'eu-central-1' } })).toThrow(NO_IMAGE);
    expect(NO_IMAGE).toBe('no image to run: an ECS target runs a container image');
  });

  test('several services: refused, naming them', async () => {
    const spec = await loadSpec(`services:\n  web:\n    image: a/web:1\n  db:\n    image: postgres:16\n`);
    expect(() => planEcs({ spec, envName: 'prod', instructions: '', replacesVersion: null, account: { region: 'eu-central-1' } })).toThrow(
      'an ECS target runs one service; this spec has 2 (db, web): deploy it to a host or Kubernetes target, or one env per service',
    );
  });

  test('an upgrade says what it replaces; what ECS does not carry is listed', async () => {
    const compose = `services:\n  web:\n    image: a/web:2\n    volumes: ["data:/var/lib/data"]\n    healthcheck:\n      test: ["CMD", "curl", "-f", "http://localhost/"]\n      interval: 10s\nvolumes:\n  data: {}\n`;
    const plan = planEcs(await input(compose, { replacesVersion: 3 }));
    expect(plan.summary.split('\n')[0]).toBe('Upgrade env prod from version 3 to AWS ECS on Fargate in eu-central-1: service web (image a/web:2).');
    expect(plan.summary).toContain('The service is updated in place');
    expect(plan.summary).toContain('Not carried to ECS: volumes data (the task has no persistent storage');
    expect(plan.taskDefinition.containerDefinitions?.[0]?.healthCheck).toEqual({ command: ['CMD', 'curl', '-f', 'http://localhost/'], interval: 10, timeout: 30, retries: 3, startPeriod: 0 });
  });

  test('deterministic, and the artifact reads back as the run plan', async () => {
    const a = planEcs(await input(WEB, { instructions: 'port 3000' }));
    const b = planEcs(await input(WEB, { instructions: 'port 3000' }));
    expect(a.artifact).toBe(b.artifact);
    const { summary: _s, artifact: _a, ...run } = a;
    expect(readEcsArtifact(a.artifact)).toEqual(run);
    // Sorted keys: the artifact's text does not depend on construction order.
    expect(a.artifact.indexOf('"container"')).toBeLessThan(a.artifact.indexOf('"envName"'));
  });

  test('names AWS would refuse are refused at plan time', async () => {
    await expect(input(WEB, { envName: 'prod.eu' }).then(planEcs)).rejects.toThrow('env name "prod.eu" cannot name AWS resources');
    await expect(input(WEB, { account: { region: 'Frankfurt' } }).then(planEcs)).rejects.toThrow('"Frankfurt" is not an AWS region');
  });

  test('a region of another partition gets that partition\'s policy', async () => {
    const plan = planEcs(await input(WEB, { account: { region: 'cn-north-1' } }));
    expect(plan.executionRole.policyArn).toBe('arn:aws-cn:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy');
  });
});

describe('readEcsArtifact', () => {
  test('refuses what is not an ECS artifact, naming the path', () => {
    expect(() => readEcsArtifact('{')).toThrow(/^not an ECS plan artifact: /);
    expect(() => readEcsArtifact(JSON.stringify({ format: 'denv/aws_ecs@0' }))).toThrow(/^not an ECS plan artifact: format: /);
  });
});
