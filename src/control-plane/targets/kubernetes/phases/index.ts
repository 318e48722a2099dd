/**
 * The phases of each kind on a Kubernetes target: the same names and order as on a host
 * (contracts/domain.ts KIND_PHASES — a test keeps them in step), other work. Kinds not listed need
 * datasets on a host (fork, snapshot, verify, rollback, move): the API refuses them with a 409.
 */
import type { DeploymentKind } from '../../../../contracts/domain.js';
import { resolve } from '../../../operations/deploy/resolve.js';
import { verdict as destroyVerdict } from '../../../operations/destroy/verdict.js';
import type { PhaseDef } from '../../../operations/phase.js';
import { separateVerdict } from '../../../operations/separate/verdict.js';
import { release } from '../../../operations/separate/release.js';
import { startVerdict } from '../../../operations/start/verdict.js';
import { stopVerdict } from '../../../operations/stop/verdict.js';
import { clusterHealth } from './cluster-health.js';
import { clusterIngress } from './cluster-ingress.js';
import { clusterPlace } from './cluster-place.js';
import { clusterPrepare } from './cluster-prepare.js';
import { clusterRollout } from './cluster-start.js';
import { clusterStartApply, clusterStartHealth } from './cluster-start-kind.js';
import { clusterStop } from './cluster-stop.js';
import { clusterTeardown } from './cluster-teardown.js';
import { clusterVerdict } from './cluster-verdict.js';
import { clusterJoin, clusterProvision, clusterSnapshot, clusterWarm } from './skipped-phases.js';

export const CLUSTER_KIND_DEFS: Partial<Record<DeploymentKind, readonly PhaseDef[]>> = {
  deploy: [resolve, clusterPlace, clusterProvision, clusterJoin, clusterPrepare, clusterRollout, clusterHealth, clusterWarm, clusterSnapshot, clusterIngress, clusterVerdict],
  stop: [clusterStop, stopVerdict],
  start: [clusterStartApply, clusterStartHealth, startVerdict],
  destroy: [clusterTeardown, destroyVerdict],
  separate: [release, separateVerdict],
};
