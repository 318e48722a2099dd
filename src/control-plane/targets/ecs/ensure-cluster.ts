/**
 * Apply's first step: the account's ECS cluster (`denv`), made when missing and never deleted
 * (seed 002: reusable scaffolding stays so a later deployment is fast). Looked up before it is made
 * only so `created` is true; CreateCluster itself is idempotent, so two applies racing are harmless.
 */
import { CreateClusterCommand, DescribeClustersCommand } from '@aws-sdk/client-ecs';
import { awsCall } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import type { EcsRunPlan } from './ecs-plan.js';

export async function ensureCluster(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<{ readonly clusterArn: string; readonly created: boolean }> {
  const clusterName = plan.service.cluster;
  const found = await awsCall('ecs:DescribeClusters', () => aws.ecs.send(new DescribeClustersCommand({ clusters: [clusterName] }), { abortSignal: signal }));
  const live = found.clusters?.find((c) => c.clusterName === clusterName && c.status === 'ACTIVE');
  if (live?.clusterArn) return { clusterArn: live.clusterArn, created: false };
  const made = await awsCall('ecs:CreateCluster', () => aws.ecs.send(new CreateClusterCommand({ clusterName }), { abortSignal: signal }));
  return { clusterArn: made.cluster?.clusterArn ?? clusterName, created: true };
}
