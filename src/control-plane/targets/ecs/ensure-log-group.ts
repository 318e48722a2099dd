/**
 * The env's CloudWatch Logs group (`/denv/<env>`), which the task's awslogs driver writes to (it
 * does not make the group itself: a task whose group is missing fails to start). Made when missing,
 * kept on teardown (seed 002); retention is left at CloudWatch's default.
 */
import { CreateLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import type { EcsRunPlan } from './ecs-plan.js';

export async function ensureLogGroup(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<{ readonly created: boolean }> {
  const made = await awsCallExpecting('logs:CreateLogGroup', ['ResourceAlreadyExistsException'], () =>
    aws.logs.send(new CreateLogGroupCommand({ logGroupName: plan.logGroup, tags: { 'denv:env': plan.envName } }), { abortSignal: signal }),
  );
  return { created: 'ok' in made };
}
