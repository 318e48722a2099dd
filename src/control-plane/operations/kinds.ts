/**
 * The one registry of phase implementations per kind. The order of each list must equal the
 * kind's phase list in contracts/domain.ts (KIND_PHASES); a test keeps them in step. Kinds not
 * listed here cannot be started yet (the API refuses them).
 */
import type { DeploymentKind } from '../../contracts/domain.js';
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
