/**
 * Apply's last step: register the task definition (a new revision each apply — start after stop
 * included — so the service always runs what was approved) and point the service at it: create the
 * service when there is none, update it when ECS has it ACTIVE. A service still DRAINING after a
 * teardown cannot be made again yet: that is a retryable error, not a failed deployment.
 */
import { CreateServiceCommand, RegisterTaskDefinitionCommand, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import { awsCall } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import { describeService } from './describe-service.js';
import { createServiceInput, registerInput, updateServiceInput, type EcsNetwork } from './ecs-inputs.js';
import type { EcsRunPlan } from './ecs-plan.js';

export class ServiceDrainingError extends Error {
  readonly retryable = true;
  constructor(serviceName: string) {
    super(`ecs:DescribeServices: service ${serviceName} is still draining after its teardown; apply again in a minute`);
    this.name = 'ServiceDrainingError';
  }
}

export interface DeployedService {
  readonly taskDefinitionArn: string;
  readonly revision: number;
  readonly serviceArn: string;
  /** false: an existing service was updated. */
  readonly created: boolean;
}

export async function deployService(
  aws: AwsClients,
  plan: EcsRunPlan,
  found: { readonly executionRoleArn: string; readonly image?: string; readonly pullSecretArn?: string; readonly network: EcsNetwork },
  signal?: AbortSignal,
): Promise<DeployedService> {
  const opts = { abortSignal: signal };
  const input = registerInput(plan, found);
  const registered = await awsCall('ecs:RegisterTaskDefinition', () => aws.ecs.send(new RegisterTaskDefinitionCommand(input), opts));
  const taskDefinitionArn = registered.taskDefinition?.taskDefinitionArn;
  if (!taskDefinitionArn) throw new Error('ecs:RegisterTaskDefinition: the answer has no taskDefinitionArn');
  const revision = registered.taskDefinition?.revision ?? 0;

  const live = await describeService(aws, plan, signal);
  if (live?.status === 'DRAINING') throw new ServiceDrainingError(plan.service.serviceName);
  if (live) {
    const out = await awsCall('ecs:UpdateService', () => aws.ecs.send(new UpdateServiceCommand(updateServiceInput(plan, taskDefinitionArn, found.network)), opts));
    return { taskDefinitionArn, revision, serviceArn: out.service?.serviceArn ?? live.serviceArn ?? '', created: false };
  }
  const out = await awsCall('ecs:CreateService', () => aws.ecs.send(new CreateServiceCommand(createServiceInput(plan, taskDefinitionArn, found.network)), opts));
  return { taskDefinitionArn, revision, serviceArn: out.service?.serviceArn ?? '', created: true };
}
