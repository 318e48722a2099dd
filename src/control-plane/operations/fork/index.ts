/** The fork kind's phases, in order (seed 000): POST /v1/envs/{env}/fork and POST /v1/sandboxes
 *  {from_version}. The API creates the new env (stage fork or sandbox, parent version set). */
import type { PhaseDef } from '../phase.js';
import { clone } from './clone.js';
import { health } from './health.js';
import { place } from './place.js';
import { verdict } from './verdict.js';

export const FORK_PHASES: readonly PhaseDef[] = [place, clone, health, verdict];
