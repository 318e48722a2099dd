/**
 * live_status and endpoints of an ECS env (seed 002: "for AWS it is assembled from ECS task/service
 * state"; "the public IP per Fargate task"), in the shapes the Kubernetes agent reports: the
 * service is the workload, its tasks are its pods (lastStatus as phase, stoppedReason as reason).
 * Read-only; called on request and by the monitor.
 *
 * Pods are the tasks ECS wants running, plus up to STOPPED_SHOWN recent tasks of the service's
 * current deployments that stopped on their own (failed to start, essential container exited): the
 * reason a deployment is not coming up (CannotPullContainerError …) lives there. Tasks the scheduler
 * or a user stopped (scale-in, replaced by a new deployment) are history, not shown. ECS restarts a
 * task by replacing it, so `restarts` is always 0.
 */
import { DescribeNetworkInterfacesCommand } from '@aws-sdk/client-ec2';
import { DescribeTasksCommand, ListTasksCommand, type DesiredStatus, type Service, type Task } from '@aws-sdk/client-ecs';
import type { PodStatus, WorkloadStatus } from '../../../contracts/kubernetes.js';
import { awsCall } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import { describeService } from './describe-service.js';
import type { EcsRunPlan } from './ecs-plan.js';

export const STOPPED_SHOWN = 5;
/** Stop codes of tasks someone meant to stop. */
const INTENDED_STOPS = new Set(['ServiceSchedulerInitiated', 'UserInitiated', 'TerminationNotice']);

export interface EcsLiveStatus {
  /** One workload (the service), or none when the service does not exist. */
  readonly workloads: readonly WorkloadStatus[];
  /** `http://<public ip>:<port>` per running task, sorted. */
  readonly endpoints: readonly string[];
  /** The primary deployment's rollout (ECS's `rolloutState`: IN_PROGRESS, COMPLETED, FAILED). */
  readonly rollout: { readonly state: string | null; readonly reason: string | null; readonly failedTasks: number } | null;
}

export const taskId = (arn: string) => arn.slice(arn.lastIndexOf('/') + 1);

/** The task's ENI (awsvpc gives each task one), from its attachment's details. */
export function eniOf(task: Task): string | null {
  for (const a of task.attachments ?? []) {
    if (a.type !== 'ElasticNetworkInterface') continue;
    const id = a.details?.find((d) => d.name === 'networkInterfaceId')?.value;
    if (id) return id;
  }
  return null;
}

export function podOf(task: Task, hasHealthCheck: boolean): PodStatus {
  const phase = task.lastStatus ?? 'UNKNOWN';
  const healthy = hasHealthCheck ? task.healthStatus === 'HEALTHY' : task.healthStatus !== 'UNHEALTHY';
  const reason = task.stoppedReason ?? task.containers?.find((c) => c.reason)?.reason ?? null;
  return { name: taskId(task.taskArn ?? ''), phase, ready: phase === 'RUNNING' && healthy, restarts: 0, reason };
}

/** The tasks shown as pods: pure, see the top of the file. */
export function shownTasks(service: Service, tasks: readonly Task[]): Task[] {
  const current = new Set((service.deployments ?? []).map((d) => d.taskDefinition));
  const wanted = tasks.filter((t) => t.desiredStatus !== 'STOPPED');
  const failed = tasks
    .filter((t) => t.desiredStatus === 'STOPPED' && current.has(t.taskDefinitionArn) && !INTENDED_STOPS.has(t.stopCode ?? ''))
    .sort((a, b) => (b.stoppedAt?.getTime() ?? 0) - (a.stoppedAt?.getTime() ?? 0))
    .slice(0, STOPPED_SHOWN);
  return [...wanted, ...failed];
}

async function listTasks(aws: AwsClients, plan: EcsRunPlan, desiredStatus: DesiredStatus, signal?: AbortSignal): Promise<string[]> {
  const out = await awsCall('ecs:ListTasks', () =>
    aws.ecs.send(new ListTasksCommand({ cluster: plan.service.cluster, serviceName: plan.service.serviceName, desiredStatus, maxResults: 100 }), { abortSignal: signal }),
  );
  return out.taskArns ?? [];
}

export async function ecsLiveStatus(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<EcsLiveStatus> {
  const service = await describeService(aws, plan, signal);
  if (!service) return { workloads: [], endpoints: [], rollout: null };
  const arns = [...(await listTasks(aws, plan, 'RUNNING', signal)), ...(await listTasks(aws, plan, 'STOPPED', signal))];
  const tasks: Task[] = [];
  for (let i = 0; i < arns.length; i += 100) {
    const out = await awsCall('ecs:DescribeTasks', () => aws.ecs.send(new DescribeTasksCommand({ cluster: plan.service.cluster, tasks: arns.slice(i, i + 100) }), { abortSignal: signal }));
    tasks.push(...(out.tasks ?? []));
  }
  const shown = shownTasks(service, tasks);
  const hasHealthCheck = !!plan.taskDefinition.containerDefinitions?.[0]?.healthCheck;
  const pods = shown.map((t) => podOf(t, hasHealthCheck));

  const running = shown.filter((t) => t.lastStatus === 'RUNNING');
  const enis = running.map(eniOf).filter((id): id is string => id !== null);
  const endpoints: string[] = [];
  if (enis.length > 0) {
    // A filter, not NetworkInterfaceIds: an ENI gone since ListTasks is then absent, not an error.
    const out = await awsCall('ec2:DescribeNetworkInterfaces', () =>
      aws.ec2.send(new DescribeNetworkInterfacesCommand({ Filters: [{ Name: 'network-interface-id', Values: enis }] }), { abortSignal: signal }),
    );
    for (const ni of out.NetworkInterfaces ?? []) {
      const ip = ni.Association?.PublicIp;
      if (ip) endpoints.push(`http://${ip}:${plan.container.port}`);
    }
  }
  const images = [...new Set((running.length > 0 ? running : shown).flatMap((t) => (t.containers ?? []).map((c) => c.image ?? '')).filter(Boolean))].sort();
  const primary = service.deployments?.find((d) => d.status === 'PRIMARY');
  return {
    workloads: [{ name: plan.service.serviceName, service: plan.container.service, desired: service.desiredCount ?? 0, ready: pods.filter((p) => p.ready).length, images, pods }],
    endpoints: endpoints.sort(),
    rollout: primary ? { state: primary.rolloutState ?? null, reason: primary.rolloutStateReason ?? null, failedTasks: primary.failedTasks ?? 0 } : null,
  };
}
