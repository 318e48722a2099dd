/**
 * Planners turn a deploy request into a plan: a plain-English summary and the rendered artifact
 * the target will run. The host planner is deterministic (the compose file the agent runs);
 * Kubernetes and ECS planners plug in behind the same interface later.
 */
import { stringify } from 'yaml';
import type { ServiceSpec, Spec } from '../../contracts/spec.js';

export interface PlanInput {
  readonly spec: Spec;
  readonly envName: string;
  readonly hostName: string | null;
  /** The version this plan replaces, if any. */
  readonly replacesVersion: number | null;
  /** Free-text instructions: the project's, plus every replan guidance, in order. */
  readonly instructions: string;
}

export interface Plan {
  readonly planner: string;
  readonly summary: string;
  readonly artifact: string;
  /** A cluster plan: the namespace it was made for (the cluster agent's), where it must be applied. */
  readonly namespace?: string;
}

/** A planning failure not worth retrying by the sweep (an LLM planner that already used its tries):
 *  the env fails at once with "use Re-plan to retry". */
export class FinalPlanError extends Error {
  override readonly name = 'FinalPlanError';
}

export interface Planner {
  readonly name: string;
  plan(input: PlanInput): Promise<Plan>;
  /** aws_ecs envs are planned by targets/ecs/ (seed 002's deterministic plan, plan-ecs-env.ts); the
   *  control plane's `planner` with `planEcs` is handed that plan before it is recorded and returns
   *  the plan to record — a test's held planner holds the env in `planning` there. Without it the
   *  plan is recorded as made. A failure counts as a failed planning attempt, as `plan`'s does. */
  planEcs?(input: PlanInput, deterministic: Plan): Promise<Plan>;
}

function describeService(name: string, s: ServiceSpec): string {
  const what = s.image ? `container ${s.image}` : `process \`${(s.command ?? []).join(' ')}\``;
  const health =
    s.health.kind === 'http' ? `health GET ${s.health.path}` : s.health.kind === 'command' ? `health \`${s.health.test.join(' ')}\`` : 'healthy once up for 1 s';
  const data = s.volumes.length > 0 ? `, datasets ${s.volumes.map((v) => v.source).join(', ')}` : '';
  return `${name}: ${what}, ${health}${data}`;
}

/** The compose file the host runs: the normalised spec in Compose form (argv commands, absolute dirs). */
export function renderHostArtifact(spec: Spec): string {
  const services: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec.services)) {
    services[name] = {
      ...(s.image ? { image: s.image } : {}),
      ...(s.command ? { command: [...s.command] } : {}),
      ...(s.working_dir ? { working_dir: s.working_dir } : {}),
      ...(Object.keys(s.environment).length > 0 ? { environment: { ...s.environment } } : {}),
      ...(s.volumes.length > 0 ? { volumes: s.volumes.map((v) => `${v.source}:${v.target}${v.read_only ? ':ro' : ''}`) } : {}),
      ...(s.health.kind === 'http' ? { 'x-denv': { health: { path: s.health.path, ...(s.health.port ? { port: s.health.port } : {}) } } } : {}),
      ...(s.health.kind === 'command' ? { healthcheck: { test: ['CMD', ...s.health.test] } } : {}),
    };
  }
  const doc: Record<string, unknown> = { services };
  if (spec.volumes.length > 0) doc.volumes = Object.fromEntries(spec.volumes.map((v) => [v, {}]));
  return stringify(doc);
}

export const hostPlanner: Planner = {
  name: 'host',
  async plan(input) {
    const names = Object.keys(input.spec.services);
    if (names.length === 0) throw new Error('the spec has no service to run');
    for (const [name, s] of Object.entries(input.spec.services)) {
      if (!s.image && (!s.command || s.command.length === 0)) throw new Error(`service ${name} has no image and no command to run`);
    }
    const lines = [
      `${input.replacesVersion ? `Upgrade env ${input.envName} from version ${input.replacesVersion}` : `Deploy env ${input.envName}`}` +
        ` on ${input.hostName ? `host ${input.hostName}` : 'the first connected host'}: ${names.length} service${names.length > 1 ? 's' : ''}.`,
      ...Object.entries(input.spec.services).map(([n, s]) => `- ${describeService(n, s)}`),
    ];
    if (input.spec.volumes.length > 0) lines.push(`Datasets: ${input.spec.volumes.join(', ')} (kept across versions, snapshotted after health).`);
    if (input.replacesVersion) lines.push('The new version starts beside the running one and replaces it only when healthy.');
    if (input.instructions.trim()) lines.push(`Instructions: ${input.instructions.trim()}`);
    return { planner: 'host', summary: lines.join('\n'), artifact: renderHostArtifact(input.spec) };
  },
};
