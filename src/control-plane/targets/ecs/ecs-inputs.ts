/**
 * The inputs of the ECS and EC2 calls that change things, built from a plan and what apply found in
 * the account. Pure: unit-tested on their exact output; ecs-target.ts decides when to send them.
 */
import type { IpPermission, SecurityGroup } from '@aws-sdk/client-ec2';
import type { CreateServiceCommandInput, NetworkConfiguration, RegisterTaskDefinitionCommandInput, UpdateServiceCommandInput } from '@aws-sdk/client-ecs';
import { DenvError } from '../../../contracts/errors.js';
import { canonicalJson } from '../../../lib/canonical-json.js';
import { NO_IMAGE, type EcsRunPlan } from './ecs-plan.js';

/** What apply found or made in the account for the service's network. */
export interface EcsNetwork {
  readonly subnets: readonly string[];
  readonly securityGroupId: string;
}

/** The internet, for the app's port: tasks are reached at their public IPs (no load balancer). */
export const ANYWHERE = '0.0.0.0/0';

/** The task definition to register: the plan's, with the execution role's ARN and the image
 *  (`image` replaces the plan's, e.g. a build of a linked repository), and — when the plan pulls
 *  with the project's registry login — the pull secret's ARN as the container's
 *  `repositoryCredentials`. Throws without any image. */
export function registerInput(plan: EcsRunPlan, found: { readonly executionRoleArn: string; readonly image?: string; readonly pullSecretArn?: string }): RegisterTaskDefinitionCommandInput {
  const [container, ...rest] = plan.taskDefinition.containerDefinitions ?? [];
  const image = found.image ?? container?.image;
  if (!container || !image) throw new DenvError('BAD_REQUEST', NO_IMAGE);
  const credentials = found.pullSecretArn ? { repositoryCredentials: { credentialsParameter: found.pullSecretArn } } : {};
  return { ...plan.taskDefinition, executionRoleArn: found.executionRoleArn, containerDefinitions: [{ ...container, image, ...credentials }, ...rest] };
}

/** The pull secret's value, as ECS reads private registry credentials: `{"username", "password"}`. */
export const pullSecretValue = (login: { readonly username: string; readonly password: string }): string => JSON.stringify({ username: login.username, password: login.password });

/** Whether a stored secret value holds this login (and nothing else): unchanged, it is not written again. */
export function holdsLogin(stored: string | undefined, login: { readonly username: string; readonly password: string }): boolean {
  try {
    const v = JSON.parse(stored ?? '') as Record<string, unknown>;
    return Object.keys(v).length === 2 && v.username === login.username && v.password === login.password;
  } catch {
    return false;
  }
}

/** The execution role's inline policy: it may read the pull secret, and only that. */
export const pullSecretPolicy = (secretArn: string): string =>
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn }] });

/** Whether the role's policy (as GetRolePolicy answers it: URL-encoded JSON) is `wanted`. */
export function samePolicy(stored: string | undefined, wanted: string): boolean {
  try {
    return canonicalJson(JSON.parse(decodeURIComponent(stored ?? ''))) === canonicalJson(JSON.parse(wanted));
  } catch {
    return false;
  }
}

function networkConfiguration(plan: EcsRunPlan, net: EcsNetwork): NetworkConfiguration {
  return { awsvpcConfiguration: { subnets: [...net.subnets], securityGroups: [net.securityGroupId], assignPublicIp: plan.service.assignPublicIp } };
}

const deploymentConfiguration = (plan: EcsRunPlan) => {
  const d = plan.service.deploymentConfiguration;
  return { minimumHealthyPercent: d.minimumHealthyPercent, maximumPercent: d.maximumPercent, deploymentCircuitBreaker: { ...d.deploymentCircuitBreaker } };
};

export function createServiceInput(plan: EcsRunPlan, taskDefinitionArn: string, net: EcsNetwork): CreateServiceCommandInput {
  const s = plan.service;
  return {
    cluster: s.cluster,
    serviceName: s.serviceName,
    taskDefinition: taskDefinitionArn,
    desiredCount: s.desiredCount,
    launchType: s.launchType,
    networkConfiguration: networkConfiguration(plan, net),
    deploymentConfiguration: deploymentConfiguration(plan),
    propagateTags: 'SERVICE',
    tags: s.tags.map((t) => ({ ...t })),
  };
}

/** A new deployment of an existing service: the new task definition, the plan's task count (start
 *  after stop brings it back), and the network as found now. */
export function updateServiceInput(plan: EcsRunPlan, taskDefinitionArn: string, net: EcsNetwork): UpdateServiceCommandInput {
  const s = plan.service;
  return {
    cluster: s.cluster,
    service: s.serviceName,
    taskDefinition: taskDefinitionArn,
    desiredCount: s.desiredCount,
    networkConfiguration: networkConfiguration(plan, net),
    deploymentConfiguration: deploymentConfiguration(plan),
  };
}

/** Stop (seed 002): the service stays, with no task. */
export function scaleToZeroInput(plan: EcsRunPlan): UpdateServiceCommandInput {
  return { cluster: plan.service.cluster, service: plan.service.serviceName, desiredCount: 0 };
}

/** The security group's rule for the app's port. */
export function ingressPermission(port: number): IpPermission {
  return { IpProtocol: 'tcp', FromPort: port, ToPort: port, IpRanges: [{ CidrIp: ANYWHERE, Description: 'denv: the app port' }] };
}

/** Whether the group already lets the internet reach `port` over TCP. */
export function opensPort(group: SecurityGroup, port: number): boolean {
  return (group.IpPermissions ?? []).some(
    (p) =>
      (p.IpProtocol === 'tcp' || p.IpProtocol === '-1') &&
      (p.IpProtocol === '-1' || ((p.FromPort ?? 0) <= port && port <= (p.ToPort ?? 65535))) &&
      (p.IpRanges ?? []).some((r) => r.CidrIp === ANYWHERE),
  );
}
