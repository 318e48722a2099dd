/**
 * Seed 002's registry-pull secret as planned (pull-secret-plan.ts, through planEcs): which images
 * pull with the project's registry login, how the secret and policy are named, what the summary
 * says — and that the artifact holds names only, never the login.
 */
import { describe, expect, test } from 'vitest';
import { imageRegistry, pullsFrom, registryCredentialsSchema } from '../../../contracts/registry-credentials.js';
import type { Spec } from '../../../contracts/spec-types.js';
import { readEcsArtifact } from './ecs-artifact.js';
import { registerInput } from './ecs-inputs.js';
import { planEcs, type EcsPlanInput } from './ecs-plan.js';
import { planPullSecret, pullPolicyName, pullSecretName } from './pull-secret-plan.js';

const spec = (image: string | null): Spec => ({
  services: {
    web: {
      image, command: null, entrypoint: null, environment: {}, working_dir: null, ports: [], volumes: [], health: { kind: 'alive', for_ms: 1000 },
      build: image ? null : { context: '/', dockerfile: null, args: {}, target: null },
    },
  },
  volumes: [], warm: null, target: 'aws_ecs', approval: null, agent: null, verifier: null,
});
const input = (image: string | null, registry: EcsPlanInput['registry']): EcsPlanInput => ({
  spec: spec(image), envName: 'shop-prod-a1b2c3', instructions: 'port 3000', replacesVersion: null, account: { region: 'eu-central-1' }, registry,
});
const GHCR = { project: 'shop', server: 'ghcr.io' };

describe('which image pulls from which registry', () => {
  test('the first component is the host when it holds a dot or a port or is localhost; else Docker Hub', () => {
    expect(imageRegistry('ghcr.io/acme/web:1')).toBe('ghcr.io');
    expect(imageRegistry('registry.example.com:5000/team/app@sha256:' + 'a'.repeat(64))).toBe('registry.example.com:5000');
    expect(imageRegistry('registry:5000/app')).toBe('registry:5000');
    expect(imageRegistry('localhost/app:dev')).toBe('localhost');
    expect(imageRegistry('GHCR.IO/acme/web')).toBe('ghcr.io');
    expect(imageRegistry('nginx:1.27')).toBe('docker.io');
    expect(imageRegistry('acme/web:1')).toBe('docker.io');
    expect(imageRegistry('index.docker.io/acme/web')).toBe('docker.io');
    expect(pullsFrom('acme/web:1', 'docker.io')).toBe(true);
    expect(pullsFrom('ghcr.io/acme/web', 'GHCR.io')).toBe(true);
    expect(pullsFrom('ghcr.io.evil.example/acme/web', 'ghcr.io')).toBe(false);
    expect(pullsFrom('registry.example.com/app', 'registry.example.com:5000')).toBe(false);
  });

  test('the server must be a registry host as image references name it', () => {
    const issue = (server: string) => registryCredentialsSchema.safeParse({ server, username: 'u', password: 'p' }).error?.issues[0]?.message ?? null;
    for (const ok of ['ghcr.io', 'registry.example.com:5000', 'registry:5000', 'localhost', 'docker.io', '10.0.0.7:5000']) expect(issue(ok), ok).toBeNull();
    for (const bad of ['https://ghcr.io', 'ghcr.io/acme', 'registry', 'ghcr.io:', '-bad.example', 'a b.io']) {
      expect(issue(bad), bad).toBe('expected a registry host as image references name it, such as ghcr.io or registry.example.com:5000 (no https://, no path)');
    }
    expect(registryCredentialsSchema.safeParse({ server: 'ghcr.io', username: 'a:b', password: 'p' }).error?.issues[0]?.message).toBe('expected a user name without spaces or ":"');
    expect(registryCredentialsSchema.safeParse({ server: 'ghcr.io', username: 'u', password: 'p', email: 'x' }).success).toBe(false);
  });
});

describe('names', () => {
  test('a secret and a policy per project and registry, in the characters AWS takes', () => {
    expect(pullSecretName('shop', 'ghcr.io')).toBe('denv/registry/shop/ghcr.io');
    expect(pullSecretName('shop', 'Registry.Example.com:5000')).toBe('denv/registry/shop/registry.example.com_5000');
    expect(pullSecretName('shop', 'index.docker.io')).toBe('denv/registry/shop/docker.io');
    expect(pullPolicyName('shop', 'registry.example.com:5000')).toBe('denv-pull-shop@registry.example.com_5000');
    // Two projects never share a secret (nor a policy), even where a plain join would read the same.
    expect(pullPolicyName('a-b', 'c.io')).not.toBe(pullPolicyName('a', 'b-c.io'));
    expect(pullSecretName('a-b', 'c.io')).not.toBe(pullSecretName('a', 'b-c.io'));
  });

  test('a policy name past IAM\'s 128 characters is a hash of the secret\'s name, stable', () => {
    const server = `${'r'.repeat(60)}.${'s'.repeat(60)}.example`;
    const name = pullPolicyName('a-very-long-project-name', server);
    expect(name).toMatch(/^denv-pull-[0-9a-f]{32}$/);
    expect(pullPolicyName('a-very-long-project-name', server)).toBe(name);
    expect(pullPolicyName('another-project', server)).not.toBe(name);
  });

  test('planPullSecret: only for an image on the login\'s server', () => {
    expect(planPullSecret('ghcr.io/acme/web:1', GHCR)).toEqual({ server: 'ghcr.io', secretName: 'denv/registry/shop/ghcr.io', policyName: 'denv-pull-shop@ghcr.io' });
    expect(planPullSecret('docker.io/acme/web:1', GHCR)).toBeNull();
    expect(planPullSecret('ghcr.io/acme/web:1', null)).toBeNull();
    expect(planPullSecret(null, GHCR)).toBeNull();
  });
});

describe('planEcs with a registry login', () => {
  test('an image on the project\'s registry: the run plan names the secret and policy, the summary says so', () => {
    const plan = planEcs(input('ghcr.io/acme/web:1.4', GHCR));
    expect(plan.pullSecret).toEqual({ server: 'ghcr.io', secretName: 'denv/registry/shop/ghcr.io', policyName: 'denv-pull-shop@ghcr.io' });
    // The task definition itself gets the secret's ARN at apply (it depends on the account).
    expect(plan.taskDefinition.containerDefinitions?.[0]).not.toHaveProperty('repositoryCredentials');
    expect(plan.summary.split('\n').slice(4)).toEqual([
      '- Logs go to CloudWatch Logs group /denv/shop-prod-a1b2c3; the task runs with execution role denv-ecs-execution.',
      "- The image is pulled from the private registry ghcr.io with the project's registry login, kept in Secrets Manager secret denv/registry/shop/ghcr.io" +
        ' (made, or given the new login when it changed); execution role denv-ecs-execution may read it (inline policy denv-pull-shop@ghcr.io).',
      '- Made when missing and kept on teardown: cluster denv, role denv-ecs-execution, log group /denv/shop-prod-a1b2c3, security group denv-shop-prod-a1b2c3, secret denv/registry/shop/ghcr.io. Teardown deletes only the service.',
      'Instructions: port 3000',
    ]);
    const { summary: _s, artifact: _a, ...run } = plan;
    expect(readEcsArtifact(plan.artifact)).toEqual(run);
    // Apply adds the ARN as the container's repositoryCredentials.
    const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:denv/registry/shop/ghcr.io-AbCdEf';
    const registered = registerInput(plan, { executionRoleArn: 'arn:aws:iam::123456789012:role/denv-ecs-execution', pullSecretArn: arn });
    expect(registered.containerDefinitions?.[0]?.repositoryCredentials).toEqual({ credentialsParameter: arn });
  });

  test('an image elsewhere (Docker Hub, another host) or built at apply: no pull secret, and the summary says the login is not used', () => {
    for (const [image, why] of [
      ['acme/web:1', 'the image is not on it (docker.io)'],
      ['registry.example.com/acme/web:1', 'the image is not on it (registry.example.com)'],
      [null, 'the image is built at apply'],
    ] as const) {
      const plan = planEcs(input(image, GHCR));
      expect(plan.pullSecret, String(image)).toBeUndefined();
      expect(plan.summary).toContain(`- The project's registry login for ghcr.io is not used: ${why}.`);
      expect(plan.summary).not.toContain('Secrets Manager');
      expect(plan.artifact).not.toContain('pullSecret');
    }
  });

  test('no login: the plan (and its artifact) are what they were before pull secrets', () => {
    const without = planEcs(input('ghcr.io/acme/web:1', null));
    const absent = planEcs({ ...input('ghcr.io/acme/web:1', null), registry: undefined });
    expect(without.artifact).toBe(absent.artifact);
    expect(without.pullSecret).toBeUndefined();
    expect(without.summary).not.toContain('registry');
  });

  test('the artifact holds names only: never a login, whatever the project holds', () => {
    // planEcs is never given the login: only the server. The artifact names the secret, not its content.
    const plan = planEcs(input('ghcr.io/acme/web:1', GHCR));
    expect(Object.keys(JSON.parse(plan.artifact).pullSecret).sort()).toEqual(['policyName', 'secretName', 'server']);
    expect(plan.artifact).not.toMatch(/password|username|arn:aws:secretsmanager/i);
  });

  test('an artifact whose pull secret AWS would refuse to name is not read', () => {
    const plan = planEcs(input('ghcr.io/acme/web:1', GHCR));
    const broken = JSON.parse(plan.artifact);
    broken.pullSecret.secretName = 'denv/registry/shop/ghcr.io:443';
    expect(() => readEcsArtifact(JSON.stringify(broken))).toThrow(/^not an ECS plan artifact: pullSecret\.secretName: expected a Secrets Manager secret name$/);
  });
});
