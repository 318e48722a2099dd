/**
 * The task execution role (`denv-ecs-execution`): what ECS assumes to pull the image and write the
 * logs. Made when missing (trusting `ecs-tasks.amazonaws.com`), shared by the account's envs, never
 * deleted. The managed policy is attached on every apply: AttachRolePolicy is idempotent, and a
 * role left without it (an apply that failed between CreateRole and AttachRolePolicy) is mended.
 * A role made seconds ago may not be usable by ECS yet (IAM is eventually consistent): the service
 * then retries its tasks, and waitStable sees them run.
 */
import { AttachRolePolicyCommand, CreateRoleCommand, GetRoleCommand } from '@aws-sdk/client-iam';
import { awsCall, awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import type { EcsRunPlan } from './ecs-plan.js';

/** Lets ECS tasks assume the role, and nothing else. */
export const ECS_TASKS_TRUST_POLICY = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

export async function ensureExecutionRole(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<{ readonly roleArn: string; readonly created: boolean }> {
  const RoleName = plan.executionRole.name;
  const opts = { abortSignal: signal };
  const getRole = () => awsCallExpecting('iam:GetRole', ['NoSuchEntityException'], () => aws.iam.send(new GetRoleCommand({ RoleName }), opts));
  let roleArn: string | undefined;
  let created = false;
  const found = await getRole();
  if ('ok' in found) roleArn = found.ok.Role?.Arn;
  else {
    const made = await awsCallExpecting('iam:CreateRole', ['EntityAlreadyExistsException'], () =>
      aws.iam.send(
        new CreateRoleCommand({
          RoleName,
          AssumeRolePolicyDocument: ECS_TASKS_TRUST_POLICY,
          Description: 'denv: lets ECS pull the image and write the logs of denv tasks',
          Tags: [{ Key: 'denv:managed-by', Value: 'denv' }],
        }),
        opts,
      ),
    );
    if ('ok' in made) {
      roleArn = made.ok.Role?.Arn;
      created = true;
    } else {
      // Another apply made it between our GetRole and CreateRole.
      const again = await getRole();
      if ('ok' in again) roleArn = again.ok.Role?.Arn;
    }
  }
  if (!roleArn) throw new Error(`iam:GetRole: role ${RoleName} has no ARN`);
  await awsCall('iam:AttachRolePolicy', () => aws.iam.send(new AttachRolePolicyCommand({ RoleName, PolicyArn: plan.executionRole.policyArn }), opts));
  return { roleArn, created };
}
