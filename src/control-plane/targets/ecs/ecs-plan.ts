/**
 * The AWS ECS target's planner (DESIGN §9, seed 002): deterministic, no I/O. It turns an env's
 * spec into one Fargate task definition and one service, and says in plain English what applying
 * them will do. The executor (ecs-target.ts) runs the plan; the artifact is what the plan row
 * stores, and `readEcsArtifact` gives the executor its plan back from it.
 *
 * An ECS target runs one service. A spec with several is refused rather than packed into one task
 * definition: containers of one awsvpc task share `localhost`, so the service names a Compose app
 * reaches its siblings by (`db:5432`) would not resolve, and the app would deploy and then fail at
 * run time. Deploy such an app to a host or Kubernetes target, or one env per service.
 */
import type { ContainerDefinition, KeyValuePair, Tag } from '@aws-sdk/client-ecs';
import { canonicalJson } from '../../../lib/canonical-json.js';
import { DenvError } from '../../../contracts/errors.js';
import type { ServiceSpec, Spec } from '../../../contracts/spec-types.js';
import { containerPort } from './container-port.js';
import { summarizeEcsPlan } from './ecs-summary.js';
import { planPullSecret } from './pull-secret-plan.js';
import type { EcsPlanInput, EcsRunPlan } from './ecs-run-plan.js';

export type { EcsPlanInput, EcsPullSecretPlan, EcsRunPlan, EcsServicePlan } from './ecs-run-plan.js';

/** The cluster every env of an AWS account runs in (kept by teardown). */
export const ECS_CLUSTER = 'denv';
/** The task execution role (pulls the image, writes the logs), shared by the account's envs, kept by teardown. */
export const ECS_EXECUTION_ROLE = 'denv-ecs-execution';
/** Seed 002's size: 0.25 vCPU and 512 MB, the smallest Fargate size. Compose limits do not change it. */
export const FARGATE_CPU = '256';
export const FARGATE_MEMORY = '512';
/** `format` of the artifact; a change to its shape gets a new one. */
export const ECS_ARTIFACT_FORMAT = 'denv/aws_ecs@1';

export interface EcsPlan extends EcsRunPlan {
  /** Plain English: what applying this plan does (seed 002's "plan summary"). */
  readonly summary: string;
  /** The run plan as JSON with sorted keys (`readEcsArtifact` reads it back). */
  readonly artifact: string;
}

export const NO_IMAGE = 'no image to run: an ECS target runs a container image';

const AWS_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,199}$/;
/** An AWS region's name: `eu-central-1`, `us-gov-west-1`, `cn-north-1`. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** `aws`, `aws-cn` or `aws-us-gov`: the partition of AWS-managed policy ARNs. */
export function awsPartition(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The one service an ECS target runs; refuses several, and one with no image to run. */
function theService(spec: Spec): readonly [string, ServiceSpec] {
  const entries = Object.entries(spec.services).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) throw new DenvError('BAD_REQUEST', NO_IMAGE);
  if (entries.length > 1) {
    throw new DenvError(
      'BAD_REQUEST',
      `an ECS target runs one service; this spec has ${entries.length} (${entries.map(([n]) => n).join(', ')}): deploy it to a host or Kubernetes target, or one env per service`,
    );
  }
  const [name, service] = entries[0]!;
  // A service with `build` (or any service of a source deploy) gets its image at apply time.
  if (!service.image && !service.build && !spec.source) throw new DenvError('BAD_REQUEST', NO_IMAGE);
  return [name, service];
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const seconds = (ms: number) => Math.round(ms / 1000);

function containerDefinition(name: string, s: ServiceSpec, port: number, logGroup: string, region: string): ContainerDefinition {
  // PORT is what many images read to pick their port; an explicit one in the spec wins.
  const environment: KeyValuePair[] = Object.entries({ PORT: String(port), ...s.environment })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => ({ name: k, value: v }));
  return {
    name,
    ...(s.image ? { image: s.image } : {}),
    essential: true,
    // awsvpc: the host port is the container port.
    portMappings: [{ containerPort: port, hostPort: port, protocol: 'tcp' }],
    environment,
    ...(s.entrypoint ? { entryPoint: [...s.entrypoint] } : {}),
    ...(s.command ? { command: [...s.command] } : {}),
    ...(s.working_dir ? { workingDirectory: s.working_dir } : {}),
    ...(s.user ? { user: s.user } : {}),
    ...(s.read_only ? { readonlyRootFilesystem: true } : {}),
    // Fargate allows 2–120 s between SIGTERM and SIGKILL.
    ...(s.stop_grace_ms != null ? { stopTimeout: clamp(seconds(s.stop_grace_ms), 2, 120) } : {}),
    // Only a command check maps to ECS (which runs it in the container); an HTTP check would need a
    // load balancer, which this target does not make. ECS's ranges: interval 5–300 s, timeout
    // 2–60 s, retries 1–10, start period 0–300 s.
    ...(s.health.kind === 'command'
      ? {
          healthCheck: {
            command: ['CMD', ...s.health.test],
            interval: clamp(seconds(s.health.interval_ms), 5, 300),
            timeout: clamp(seconds(s.health.timeout_ms), 2, 60),
            retries: clamp(s.health.retries, 1, 10),
            startPeriod: clamp(seconds(s.health.start_period_ms), 0, 300),
          },
        }
      : {}),
    logConfiguration: {
      logDriver: 'awslogs',
      // Streams are then `<service>/<container>/<task id>`.
      options: { 'awslogs-group': logGroup, 'awslogs-region': region, 'awslogs-stream-prefix': name },
    },
  };
}

export function planEcs(input: EcsPlanInput): EcsPlan {
  const { envName, account } = input;
  if (!AWS_NAME.test(envName)) throw new DenvError('BAD_REQUEST', `env name ${JSON.stringify(envName)} cannot name AWS resources (letters, digits, _ and -, at most 200)`);
  if (!AWS_REGION.test(account.region)) throw new DenvError('BAD_REQUEST', `${JSON.stringify(account.region)} is not an AWS region (e.g. eu-central-1)`);
  const [serviceName, service] = theService(input.spec);
  const { port, from } = containerPort(service, input.instructions);
  const name = serviceName.replace(/[^A-Za-z0-9_-]/g, '-');
  const logGroup = `/denv/${envName}`;
  const tags: Tag[] = [{ key: 'denv:env', value: envName }];
  const pullSecret = planPullSecret(service.image ?? null, input.registry ?? null);
  const run: EcsRunPlan = {
    envName,
    region: account.region,
    container: { name, service: serviceName, port, portFrom: from },
    executionRole: { name: ECS_EXECUTION_ROLE, policyArn: `arn:${awsPartition(account.region)}:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy` },
    logGroup,
    ...(pullSecret ? { pullSecret } : {}),
    taskDefinition: {
      family: `denv-${envName}`,
      cpu: FARGATE_CPU,
      memory: FARGATE_MEMORY,
      networkMode: 'awsvpc',
      requiresCompatibilities: ['FARGATE'],
      containerDefinitions: [containerDefinition(name, service, port, logGroup, account.region)],
      tags,
    },
    service: {
      cluster: ECS_CLUSTER,
      serviceName: `denv-${envName}`,
      desiredCount: 1,
      launchType: 'FARGATE',
      assignPublicIp: 'ENABLED',
      securityGroupName: `denv-${envName}`,
      deploymentConfiguration: { minimumHealthyPercent: 100, maximumPercent: 200, deploymentCircuitBreaker: { enable: true, rollback: true } },
      tags,
    },
  };
  return {
    ...run,
    summary: summarizeEcsPlan(run, service, input),
    artifact: canonicalJson({ format: ECS_ARTIFACT_FORMAT, ...run }),
  };
}
