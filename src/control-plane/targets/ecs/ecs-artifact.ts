/**
 * Reads an ECS plan back from the artifact a plan row stores (ecs-plan.ts writes it), for the
 * dispatcher to apply, stop or tear down what was approved — not a plan made again from a spec that
 * may have changed since. Refuses text that is not such an artifact, naming the path that is wrong.
 * The task definition is checked only where the executor relies on it (family, one container with
 * a name); ECS validates the rest when it is registered.
 */
import type { RegisterTaskDefinitionCommandInput } from '@aws-sdk/client-ecs';
import { z } from 'zod';
import { PORT_SOURCES } from './container-port.js';
import { AWS_REGION, ECS_ARTIFACT_FORMAT, type EcsRunPlan } from './ecs-plan.js';

const name = z.string().min(1).max(255);
const tag = z.strictObject({ key: name, value: z.string().max(256) });

const artifact = z.strictObject({
  format: z.literal(ECS_ARTIFACT_FORMAT),
  envName: name,
  region: z.string().regex(AWS_REGION, 'expected an AWS region such as eu-central-1'),
  container: z.strictObject({ name, service: name, port: z.number().int().min(1).max(65535), portFrom: z.enum(PORT_SOURCES) }),
  executionRole: z.strictObject({ name, policyArn: z.string().startsWith('arn:') }),
  logGroup: z.string().min(1).max(512),
  // Absent in plans made before pull secrets, and when the image needs no login.
  pullSecret: z.strictObject({ server: name, secretName: z.string().regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, "expected a Secrets Manager secret name"), policyName: z.string().regex(/^[\w+=,.@-]{1,128}$/, 'expected an IAM policy name') }).optional(),
  taskDefinition: z.looseObject({ family: name, containerDefinitions: z.array(z.looseObject({ name })).length(1) }),
  service: z.strictObject({
    cluster: name,
    serviceName: name,
    desiredCount: z.number().int().min(0),
    launchType: z.literal('FARGATE'),
    assignPublicIp: z.literal('ENABLED'),
    securityGroupName: name,
    deploymentConfiguration: z.strictObject({
      minimumHealthyPercent: z.number().int(),
      maximumPercent: z.number().int(),
      deploymentCircuitBreaker: z.strictObject({ enable: z.boolean(), rollback: z.boolean() }),
    }),
    tags: z.array(tag),
  }),
});

export function readEcsArtifact(text: string): EcsRunPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`not an ECS plan artifact: ${(err as Error).message}`);
  }
  const parsed = artifact.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`not an ECS plan artifact: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const { format: _format, ...run } = parsed.data;
  return { ...run, taskDefinition: run.taskDefinition as RegisterTaskDefinitionCommandInput };
}
