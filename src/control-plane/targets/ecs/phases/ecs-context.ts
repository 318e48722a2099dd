/**
 * What every ECS phase starts from: the env's AWS account (as an executor) and the plan to apply —
 * the one approved for a deploy, or the one of the env's current version — read back from its
 * artifact, so exactly what was approved is applied.
 */
import { normalRegistry, type RegistryCredentials } from '../../../../contracts/registry-credentials.js';
import type { Spec } from '../../../../contracts/spec.js';
import { approvedArtifact } from '../../../lifecycle/plans.js';
import { PhaseFailed, type PhaseContext } from '../../../operations/phase.js';
import { loadAwsAccount } from '../ecs-accounts.js';
import { readEcsArtifact } from '../ecs-artifact.js';
import type { EcsRunPlan } from '../ecs-plan.js';
import type { EcsApplyOptions, EcsTarget } from '../ecs-target.js';

export async function ecsTargetOf(ctx: PhaseContext): Promise<{ target: EcsTarget; account: string }> {
  const env = await ctx.env();
  if (!env.aws_account) throw new PhaseFailed('no AWS account was chosen for this env (planning sets it)');
  const row = await loadAwsAccount(ctx.db, env.aws_account);
  if (!row || row.removed_at) throw new PhaseFailed(`the env's AWS account ${env.aws_account} was removed`);
  return { target: await ctx.aws.target(row, ctx.signal), account: row.name };
}

/** The plan approved for deploy `deployment`. */
export async function deployPlan(ctx: PhaseContext, deployment = ctx.deployment.id): Promise<EcsRunPlan> {
  const artifact = await approvedArtifact(ctx.db, deployment);
  if (artifact === null) throw new PhaseFailed('no approved plan for this deploy');
  return readEcsArtifact(artifact);
}

/** The plan and spec of `version`: those of the deploy that created it. */
export async function versionPlan(ctx: PhaseContext, version: string): Promise<{ plan: EcsRunPlan; spec: Spec }> {
  const rows = await ctx.db.query<{ deployment: string | null; spec: Spec }>('select deployment, spec from versions where id = $1', [version]);
  if (!rows[0]?.deployment) throw new PhaseFailed(`version ${version} has no stored plan`);
  return { plan: await deployPlan(ctx, rows[0].deployment), spec: rows[0].spec };
}

/** The service's image: the spec's one image service (the plan names it too; this wins, as on a cluster). */
export function imageOf(spec: Spec): string | undefined {
  return Object.values(spec.services).find((s) => s.image)?.image ?? undefined;
}

/**
 * The project's registry login when `plan` pulls with it (seed 002's registry-pull secret): read
 * now, at apply, from the project — the plan says only *that* it is used. A project whose login was
 * cleared since, or now names another registry, fails the phase saying what to do; nothing is written.
 */
export async function registryLogin(ctx: PhaseContext, plan: EcsRunPlan): Promise<RegistryCredentials | undefined> {
  const pull = plan.pullSecret;
  if (!pull) return undefined;
  const rows = await ctx.db.query<{ name: string; registry_credentials: RegistryCredentials | null }>('select p.name, p.registry_credentials from envs e join projects p on p.id = e.project where e.id = $1', [ctx.deployment.env]);
  const login = rows[0]?.registry_credentials ?? null;
  if (login && normalRegistry(login.server) === pull.server) return login;
  const now = login ? `a login for ${login.server} now` : 'none now';
  throw new PhaseFailed(
    `the plan pulls the image from ${pull.server} with the project's registry login, and the project has ${now}: set it again (denv project registry ${rows[0]?.name ?? '<project>'} --server ${pull.server} …) or re-plan`,
    { registry: pull.server },
  );
}

/** What apply is given beside the plan: the spec's image and the project's registry login (when the plan pulls with it). */
export async function applyOptions(ctx: PhaseContext, plan: EcsRunPlan, spec: Spec): Promise<EcsApplyOptions> {
  const image = imageOf(spec);
  const registryCredentials = await registryLogin(ctx, plan);
  return { ...(image ? { image } : {}), ...(registryCredentials ? { registryCredentials } : {}), signal: ctx.signal };
}

/** Run `work` with the env's executor, releasing its SDK clients after. */
export async function withEcs<T>(ctx: PhaseContext, work: (target: EcsTarget, account: string) => Promise<T>): Promise<T> {
  const { target, account } = await ecsTargetOf(ctx);
  try {
    return await work(target, account);
  } finally {
    target.close();
  }
}

/** How long a rollout may take to become stable, and how often it is looked at. */
export const STABLE_TIMEOUT_MS = 10 * 60_000;
export const STABLE_POLL_MS = 2000;

/** Wait for the service to be stable; PhaseFailed with ECS's reason otherwise. */
export async function waitServiceStable(ctx: PhaseContext, target: EcsTarget, plan: EcsRunPlan, taskDefinitionArn?: string): Promise<{ polls: number; runningCount: number }> {
  const res = await target.waitStable(plan, { timeoutMs: STABLE_TIMEOUT_MS, intervalMs: STABLE_POLL_MS, signal: ctx.signal, ...(taskDefinitionArn ? { taskDefinitionArn } : {}) });
  if (res.outcome === 'stable') return { polls: res.polls, runningCount: res.runningCount };
  // Why the tasks stopped (e.g. CannotPullContainerError) says more than ECS's deployment reason.
  const live = await target.liveStatus(plan, { signal: ctx.signal }).catch(() => null);
  const stopped = [...new Set((live?.workloads ?? []).flatMap((w) => w.pods.map((p) => p.reason)).filter((r): r is string => r !== null))];
  const tasks = stopped.length > 0 ? ` (tasks: ${stopped.join('; ')})` : '';
  const why = res.outcome === 'failed' ? `did not become stable: ${res.reason}` : `was not stable within ${STABLE_TIMEOUT_MS / 60_000} min: ${res.detail}`;
  throw new PhaseFailed(`the ECS service ${why}${tasks}`, { polls: res.polls, ...(res.outcome === 'failed' ? { reason: res.reason } : { detail: res.detail }), workloads: live?.workloads ?? [] });
}
