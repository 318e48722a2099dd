/** The snapshot kind's phases, in order (seed 000). */
import type { PhaseDef } from '../phase.js';
import { health } from './health.js';
import { snapshot } from './snapshot.js';
import { verdict } from './verdict.js';

export const SNAPSHOT_PHASES: readonly PhaseDef[] = [snapshot, health, verdict];
