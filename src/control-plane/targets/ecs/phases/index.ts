/**
 * The phases of each kind on an AWS ECS target: the same names and order as on a host (a test keeps
 * them in step), run by the control plane against the account. Kinds not listed (fork, snapshot,
 * verify, rollback, move) need datasets on a host: the API refuses them with a 409.
 */
import type { DeploymentKind } from '../../../../contracts/domain.js';
import { resolve } from '../../../operations/deploy/resolve.js';
import { verdict as destroyVerdict } from '../../../operations/destroy/verdict.js';
import type { PhaseDef } from '../../../operations/phase.js';
import { separateVerdict } from '../../../operations/separate/verdict.js';
import { startVerdict } from '../../../operations/start/verdict.js';
import { stopVerdict } from '../../../operations/stop/verdict.js';
import { ecsHealth, ecsIngress, ecsJoin, ecsPlace, ecsPrepare, ecsProvision, ecsRollout, ecsSnapshot, ecsWarm } from './ecs-deploy.js';
import { ecsRelease, ecsStartApply, ecsStartHealth, ecsStop, ecsTeardown } from './ecs-lifecycle.js';
import { ecsVerdict } from './ecs-verdict.js';

export const ECS_KIND_DEFS: Partial<Record<DeploymentKind, readonly PhaseDef[]>> = {
  deploy: [resolve, ecsPlace, ecsProvision, ecsJoin, ecsPrepare, ecsRollout, ecsHealth, ecsWarm, ecsSnapshot, ecsIngress, ecsVerdict],
  stop: [ecsStop, stopVerdict],
  start: [ecsStartApply, ecsStartHealth, startVerdict],
  destroy: [ecsTeardown, destroyVerdict],
  separate: [ecsRelease, separateVerdict],
};
