/** The rollback kind's phases, in order (seed 000). */
import type { PhaseDef } from '../phase.js';
import { health } from './health.js';
import { restore } from './restore.js';
import { verdict } from './verdict.js';

export const ROLLBACK_PHASES: readonly PhaseDef[] = [restore, health, verdict];
