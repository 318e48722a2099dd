/**
 * The plan's ECS service as ECS sees it now, or null when there is none: never made, deleted (the
 * cluster answers INACTIVE for a while after), or the cluster itself missing. Read by apply (create
 * or update?), waitStable and liveStatus.
 */
import { DescribeServicesCommand, type Service } from '@aws-sdk/client-ecs';
import { awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import type { EcsRunPlan } from './ecs-plan.js';

export async function describeService(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<Service | null> {
  const out = await awsCallExpecting('ecs:DescribeServices', ['ClusterNotFoundException'], () =>
    aws.ecs.send(new DescribeServicesCommand({ cluster: plan.service.cluster, services: [plan.service.serviceName] }), { abortSignal: signal }),
  );
  if (!('ok' in out)) return null;
  const service = out.ok.services?.find((s) => s.serviceName === plan.service.serviceName);
  return service && service.status !== 'INACTIVE' ? service : null;
}
