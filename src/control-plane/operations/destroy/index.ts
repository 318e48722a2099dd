/** The destroy kind's phases, in order (seed 000). Started by DELETE /v1/envs/{env} and by the
 *  `teardown` lifecycle action, which both move the env to `tearing_down` first. */
import type { PhaseDef } from '../phase.js';
import { teardown } from './teardown.js';
import { verdict } from './verdict.js';

export const DESTROY_PHASES: readonly PhaseDef[] = [teardown, verdict];
