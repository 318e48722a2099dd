/**
 * The plain-English summary of an ECS plan (seed 002: "the plan lands with a plain-English plan
 * summary"), what a user reads before approving. It says what will be made, where the app will be
 * reachable, and what of the Compose file an ECS target does not carry, so nothing is dropped
 * silently. Pure.
 */
import { imageRegistry } from '../../../contracts/registry-credentials.js';
import type { ServiceSpec } from '../../../contracts/spec-types.js';
import type { PortSource } from './container-port.js';
import type { EcsPlanInput, EcsRunPlan } from './ecs-run-plan.js';

const PORT_FROM: Record<PortSource, string> = {
  instructions: 'from the instructions',
  spec: 'from the Compose file',
  default: 'the default; name another in the instructions, e.g. "listens on 3000"',
};

/** What the service asks for that an ECS target leaves out, one phrase each. */
function notCarried(s: ServiceSpec): string[] {
  const out: string[] = [];
  if (s.volumes.length > 0) out.push(`volumes ${s.volumes.map((v) => v.source).join(', ')} (the task has no persistent storage: their data is lost when a task stops)`);
  const files = [...(s.secrets ?? []), ...(s.configs ?? [])].map((f) => f.source);
  if (files.length > 0) out.push(`secret and config files ${files.join(', ')}`);
  if ((s.binds ?? []).length > 0) out.push('bind mounts');
  if ((s.tmpfs ?? []).length > 0) out.push('tmpfs mounts');
  if (s.limits && (s.limits.cpus !== null || s.limits.memory_bytes !== null)) out.push('resource limits (the task has 0.25 vCPU and 512 MB)');
  if (s.health.kind === 'http') out.push(`the HTTP health check ${s.health.path} (ECS only runs command checks without a load balancer)`);
  if ((s.edge?.hostnames ?? []).length > 0) out.push(`hostnames ${s.edge!.hostnames.join(', ')} (no load balancer or DNS: the app answers on its task's public IP)`);
  return out;
}

/** Whether the image is pulled with the project's registry login, in one line; null when the
 *  project has none. A login the image does not use is said too: a server typed wrong shows here,
 *  not as a failed pull after approval. */
function pullLine(plan: EcsRunPlan, service: ServiceSpec, input: EcsPlanInput): string | null {
  const pull = plan.pullSecret;
  if (pull) {
    return `- The image is pulled from the private registry ${pull.server} with the project's registry login, kept in Secrets Manager secret ${pull.secretName}` +
      ` (made, or given the new login when it changed); execution role ${plan.executionRole.name} may read it (inline policy ${pull.policyName}).`;
  }
  if (!input.registry) return null;
  const where = service.image ? `the image is not on it (${imageRegistry(service.image)})` : 'the image is built at apply';
  return `- The project's registry login for ${input.registry.server} is not used: ${where}.`;
}

export function summarizeEcsPlan(plan: EcsRunPlan, service: ServiceSpec, input: EcsPlanInput): string {
  const { container, service: svc } = plan;
  const image = service.image ? `image ${service.image}` : 'the image built from the linked repository';
  const pull = pullLine(plan, service, input);
  const kept = [`cluster ${svc.cluster}`, `role ${plan.executionRole.name}`, `log group ${plan.logGroup}`, `security group ${svc.securityGroupName}`, ...(plan.pullSecret ? [`secret ${plan.pullSecret.secretName}`] : [])];
  const lines = [
    `${input.replacesVersion !== null ? `Upgrade env ${plan.envName} from version ${input.replacesVersion}` : `Deploy env ${plan.envName}`}` +
      ` to AWS ECS on Fargate in ${plan.region}: service ${container.service} (${image}).`,
    `- Task definition ${plan.taskDefinition.family}: 0.25 vCPU and 512 MB, container ${container.name} listening on port ${container.port} (${PORT_FROM[container.portFrom]}).`,
    `- Service ${svc.serviceName} on cluster ${svc.cluster}: ${svc.desiredCount} task with a public IP, reachable at http://<task public IP>:${container.port}.`,
    `- Security group ${svc.securityGroupName} in the default VPC opens TCP ${container.port} to the internet.`,
    `- Logs go to CloudWatch Logs group ${plan.logGroup}; the task runs with execution role ${plan.executionRole.name}.`,
    ...(pull ? [pull] : []),
    `- Made when missing and kept on teardown: ${kept.join(', ')}. Teardown deletes only the service.`,
  ];
  if (input.replacesVersion !== null) lines.push('The service is updated in place: new tasks start beside the old ones, and a deployment whose tasks keep failing is rolled back.');
  const left = notCarried(service);
  if (left.length > 0) lines.push(`Not carried to ECS: ${left.join('; ')}.`);
  if (input.instructions.trim()) lines.push(`Instructions: ${input.instructions.trim()}`);
  return lines.join('\n');
}
