/**
 * The one registry of phase implementations per kind. The order of each list must equal the
 * kind's phase list in contracts/domain.ts (KIND_PHASES); a test keeps them in step. Kinds not
 * listed here cannot be started yet (the API refuses them).
 */
import type { DeploymentKind, EnvTarget } from '../../contracts/domain.js';
import { DenvError } from '../../contracts/errors.js';
import { ECS_KIND_DEFS } from '../targets/ecs/phases/index.js';
import { CLUSTER_KIND_DEFS } from '../targets/kubernetes/phases/index.js';
import { DEPLOY_PHASES } from './deploy/index.js';
import { DESTROY_PHASES } from './destroy/index.js';
import { FORK_PHASES } from './fork/index.js';
import { MOVE_PHASES } from './move/index.js';
import type { PhaseDef } from './phase.js';
import { ROLLBACK_PHASES } from './rollback/index.js';
import { SEPARATE_PHASES } from './separate/index.js';
import { SNAPSHOT_PHASES } from './snapshot/index.js';
import { START_PHASES } from './start/index.js';
import { STOP_PHASES } from './stop/index.js';
import { VERIFY_PHASES } from './verify/index.js';

export const KIND_DEFS: Partial<Record<DeploymentKind, readonly PhaseDef[]>> = {
  deploy: DEPLOY_PHASES,
  fork: FORK_PHASES,
  snapshot: SNAPSHOT_PHASES,
  rollback: ROLLBACK_PHASES,
  verify: VERIFY_PHASES,
  destroy: DESTROY_PHASES,
  stop: STOP_PHASES,
  start: START_PHASES,
  separate: SEPARATE_PHASES,
  move: MOVE_PHASES,
};

/** Each target's phase implementations (a cluster's: targets/kubernetes/phases/). */
export const TARGET_KIND_DEFS: Record<EnvTarget, Partial<Record<DeploymentKind, readonly PhaseDef[]>>> = {
  host: KIND_DEFS,
  kubernetes: CLUSTER_KIND_DEFS,
  aws_ecs: ECS_KIND_DEFS,
};

/** Every `target:kind:phase` this control plane can run, as the engine's claim matches a
 *  deployment's phases (`envs.target || ':' || deployments.kind || ':' || name`). Read at each
 *  claim: a kind registered later counts. */
export function runnablePhases(): string[] {
  return Object.entries(TARGET_KIND_DEFS).flatMap(([target, kinds]) =>
    Object.entries(kinds).flatMap(([kind, defs]) => (defs ?? []).map((d) => `${target}:${kind}:${d.name}`)),
  );
}

/** Refuse (409) an operation an env's target cannot run — a fork, snapshot, verify, rollback or move
 *  of a Kubernetes env needs datasets on a host. Checked when the deployment is created. */
export function assertKindOnTarget(kind: DeploymentKind, target: EnvTarget, envName: string): void {
  if (TARGET_KIND_DEFS[target][kind]) return;
  const why =
    target === 'kubernetes' ? 'it needs datasets on a host, and this env runs on a Kubernetes cluster (its data is in PersistentVolumeClaims)' : 'it needs datasets on a host, and this env runs on AWS ECS (Fargate)';
  throw new DenvError('CONFLICT', `${kind} is not available for env ${envName}: ${why}`);
}
