/**
 * The one registry of phase implementations per kind. The order of each list must equal the
 * kind's phase list in contracts/domain.ts (KIND_PHASES); a test keeps them in step. Kinds not
 * listed here cannot be started yet (the API refuses them).
 */
import type { DeploymentKind } from '../../contracts/domain.js';
import { DEPLOY_PHASES } from './deploy/index.js';
import type { PhaseDef } from './phase.js';

export const KIND_DEFS: Partial<Record<DeploymentKind, readonly PhaseDef[]>> = {
  deploy: DEPLOY_PHASES,
};
