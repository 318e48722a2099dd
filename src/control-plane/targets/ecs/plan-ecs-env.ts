/**
 * Planning an env whose target is aws_ecs (the planner sweep calls it): seed 002's deterministic
 * Fargate plan for the chosen AWS account's region. No AWS call is made before approval. The
 * project's registry login is read for its server only: the plan says whether the image pulls with
 * it; the login itself is read again at apply (phases/ecs-context.ts), never planned.
 */
import type { Spec } from '../../../contracts/spec.js';
import type { Plan } from '../../lifecycle/planner.js';
import type { Db } from '../../store/db.js';
import type { EnvRow } from '../../store/rows.js';
import { chooseAwsAccount } from './ecs-accounts.js';
import { planEcs } from './ecs-plan.js';

export async function planEcsEnv(db: Db, input: { env: EnvRow; spec: Spec; requested: string | null; instructions: string; replacesVersion: number | null }): Promise<{ plan: Plan; account: string }> {
  const account = await chooseAwsAccount(db, input.env.team, input.env.aws_account ?? null, input.requested);
  // An account holds several projects' envs, and an env may be separated and its name deployed
  // again: ECS knows the env as `<project>-<env>-<6 hex of its id>`, so two envs never share a service.
  const project = (await db.query<{ name: string; server: string | null }>("select name, registry_credentials->>'server' as server from projects where id = $1", [input.env.project]))[0]!;
  const plan = planEcs({
    spec: input.spec, envName: `${project.name}-${input.env.name}-${input.env.id.slice(-6)}`, instructions: input.instructions, replacesVersion: input.replacesVersion,
    account: { region: account.region }, registry: project.server ? { project: project.name, server: project.server } : null,
  });
  return { plan: { planner: 'aws_ecs', summary: plan.summary, artifact: plan.artifact }, account: account.id };
}
